/* cli/cmd_compare.c — `retrace compare`: SSIM, PSNR and pixel differences of two PNGs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"

void cmd_compare_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace compare [--json] [--diff OUT.png] [--threshold T]\n"
            "                       [--tile-threshold T] [--channels luma|rgb] [--threads N]\n"
            "                       GOLDEN.png ACTUAL.png\n"
            "\n"
            "Prints one line (or one JSON object with --json):\n"
            "  ssim=0.998765 min_tile_ssim=0.981234 psnr=45.67 diff_pixels=123 max_delta=17\n"
            "  width=1280 height=720 result=pass\n"
            "ssim is the mean SSIM (Gaussian 11x11, sigma 1.5) on luma, or with\n"
            "--channels rgb the mean of the R, G and B SSIMs; min_tile_ssim is the worst\n"
            "32x32 tile of the SSIM map. The result fails when ssim < --threshold\n"
            "(default %.2f) or min_tile_ssim < --tile-threshold (default %.2f).\n"
            "Images of different sizes give result=size-mismatch.\n"
            "--diff writes a diff image (heat map over a dimmed golden), pass or fail.\n"
            "\n"
            "exit: 0 pass, 1 fail or size mismatch, 2 usage, 3 unreadable or broken PNG\n",
            RT_COMPARE_DEFAULT_THRESHOLD, RT_COMPARE_DEFAULT_TILE_THRESHOLD);
}

struct compare_args {
    struct rt_compare_options options;
    bool json;
    const char *diff_path;
    const char *paths[2];
};

static bool parse_unit(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= 0.0 && v <= 1.0))
        return false;
    *out = v;
    return true;
}

/* Returns the value of option NAME at argv[*i] ("--name V" or "--name=V"), or NULL. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n])
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_option(const struct rt_command *cmd, int argc, char **argv, int *i,
                        struct compare_args *a)
{
    bool missing = false;
    const char *v;
    if (!strcmp(argv[*i], "--json")) {
        a->json = true;
    } else if ((v = option_value(argc, argv, i, "--diff", &missing))) {
        a->diff_path = v;
    } else if ((v = option_value(argc, argv, i, "--threshold", &missing))) {
        if (!parse_unit(v, &a->options.threshold))
            return cli_usage_error(cmd, "--threshold must be a number in 0..1, not '%s'", v);
    } else if ((v = option_value(argc, argv, i, "--tile-threshold", &missing))) {
        if (!parse_unit(v, &a->options.tile_threshold))
            return cli_usage_error(cmd, "--tile-threshold must be a number in 0..1, not '%s'", v);
    } else if ((v = option_value(argc, argv, i, "--channels", &missing))) {
        if (strcmp(v, "luma") && strcmp(v, "rgb"))
            return cli_usage_error(cmd, "--channels must be luma or rgb, not '%s'", v);
        a->options.channels = strcmp(v, "rgb") ? RT_SSIM_LUMA : RT_SSIM_RGB;
    } else if ((v = option_value(argc, argv, i, "--threads", &missing))) {
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 1 || n > 8)
            return cli_usage_error(cmd, "--threads must be 1..8, not '%s'", v);
        a->options.threads = (unsigned)n;
    } else {
        return missing ? cli_usage_error(cmd, "%s needs a value", argv[*i])
                       : cli_usage_error(cmd, "unknown option '%s'", argv[*i]);
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
    const struct rt_command *cmd = cli_find_command("compare");
    int npaths = 0;
    bool options_done = false;
    rt_compare_options_init(&a->options);
    for (int i = 1; i < argc; i++) {
        if (!options_done && !strcmp(argv[i], "--")) {
            options_done = true;
        } else if (!options_done && argv[i][0] == '-' && argv[i][1]) {
            int rc = parse_option(cmd, argc, argv, &i, a);
            if (rc)
                return rc;
        } else if (npaths < 2) {
            a->paths[npaths++] = argv[i];
        } else {
            return cli_usage_error(cmd, "too many arguments ('%s')", argv[i]);
        }
    }
    if (npaths != 2)
        return cli_usage_error(cmd, "needs two images, GOLDEN.png and ACTUAL.png");
    a->options.want_diff = a->diff_path != NULL;
    return 0;
}

static int report(const struct compare_args *a, const struct rt_compare_result *r)
{
    char line[512];
    if (a->json)
        rt_compare_format_json(r, line, sizeof line);
    else
        rt_compare_format_line(r, line, sizeof line);
    printf("%s\n", line);
    if (fflush(stdout) != 0)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "cannot write the result: %s",
                                  strerror(errno)));
    return r->verdict == RT_COMPARE_PASS ? 0 : RT_ERR_FAILED;
}

int cmd_compare_run(int argc, char **argv)
{
    struct compare_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    struct rt_image golden, actual;
    rt_status st = rt_compare_read_pair(a.paths[0], a.paths[1], &golden, &actual);
    if (!rt_ok(&st))
        return cli_fail(st);
    struct rt_compare_result result;
    st = rt_compare_images(&golden, &actual, &a.options, &result);
    if (rt_ok(&st) && a.diff_path && result.diff.rgba)
        st = rt_png_write_file_fast(a.diff_path, &result.diff);
    else if (rt_ok(&st) && a.diff_path)
        fprintf(stderr, "retrace compare: no diff image for images of different sizes\n");
    rc = rt_ok(&st) ? report(&a, &result) : cli_fail(st);
    rt_compare_result_finish(&result);
    rt_image_finish(&golden);
    rt_image_finish(&actual);
    return rc;
}
