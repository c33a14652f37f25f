/* cli/cmd_compare.c — `retrace compare`: SSIM, PSNR and pixel differences of two PNGs. */
#include <errno.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "compare.h"
#include "file.h"

struct compare_args {
    struct rt_compare_options options;
    bool json;
    const char *diff_path;
    const char *paths[2];
};

enum { OPT_JSON = 1, OPT_DIFF, OPT_THRESHOLD, OPT_TILE, OPT_COLOUR, OPT_CHANNELS, OPT_THREADS };

static const struct cli_option options[] = {
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "the line as one JSON object"},
    {"diff", 0, CLI_VALUE, OPT_DIFF, "OUT.png",
     "write a diff image (heat map over a dimmed golden), pass or fail; it may not name GOLDEN or ACTUAL"},
    {"threshold", 0, CLI_VALUE, OPT_THRESHOLD, "T", "fail when ssim < T"},
    {"tile-threshold", 0, CLI_VALUE, OPT_TILE, "T", "fail when min_tile_ssim < T"},
    {"colour-threshold", 0, CLI_VALUE, OPT_COLOUR, "DE", "fail when delta_e > DE"},
    {"color-threshold", 0, CLI_VALUE, OPT_COLOUR},
    {"channels", 0, CLI_VALUE, OPT_CHANNELS, "luma|rgb", "SSIM on luma (default) or the mean of R, G and B"},
    {"threads", 0, CLI_VALUE, OPT_THREADS, "N", "1 to 8 (default: the machine's CPUs, at most 8)"},
    {0},
};

void cmd_compare_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace compare [--json] [--diff OUT.png] [--threshold T]\n"
            "                       [--tile-threshold T] [--colour-threshold DE]\n"
            "                       [--channels luma|rgb] [--threads N] GOLDEN.png ACTUAL.png\n"
            "\n"
            "Prints one line (or one JSON object with --json):\n"
            "  ssim=0.998765 min_tile_ssim=0.981234 delta_e=0.42 psnr=45.67 diff_pixels=123\n"
            "  max_delta=17 width=1280 height=720 result=pass\n"
            "ssim is the mean SSIM (Gaussian 11x11, sigma 1.5) on luma, or with\n"
            "--channels rgb the mean of the R, G and B SSIMs; min_tile_ssim is the worst\n"
            "32x32 tile of the SSIM map; delta_e is the largest CIEDE2000 difference\n"
            "between the mean colours of a 32x32 tile of each image (luma cannot see a\n"
            "red/blue swap or a grey frame; this can). The result fails when\n"
            "ssim < --threshold (default %.2f), min_tile_ssim < --tile-threshold\n"
            "(default %.2f) or delta_e > --colour-threshold (default %.1f).\n"
            "Images of different sizes give result=size-mismatch.\n",
            RT_COMPARE_DEFAULT_THRESHOLD, RT_COMPARE_DEFAULT_TILE_THRESHOLD,
            RT_COMPARE_DEFAULT_DELTA_E);
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "pass"},
        {RT_ERR_FAILED, "fail or size mismatch"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "unreadable or broken PNG"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

static int parse_option(struct cli_args *p, int id, struct compare_args *a)
{
    static const char *const channels[] = {"luma", "rgb", NULL};
    struct rt_compare_options *o = &a->options;
    int index = 0, rc = 0;
    switch (id) {
    case OPT_JSON: a->json = true; break;
    case OPT_DIFF: a->diff_path = p->value; break;
    case OPT_THRESHOLD: rc = cli_args_double(p, 0, 1, &o->threshold); break;
    case OPT_TILE: rc = cli_args_double(p, 0, 1, &o->tile_threshold); break;
    case OPT_COLOUR: rc = cli_args_double(p, 0, 1000, &o->delta_e_threshold); break;
    case OPT_CHANNELS:
        rc = cli_args_choice(p, channels, &index);
        o->channels = index ? RT_SSIM_RGB : RT_SSIM_LUMA;
        break;
    case OPT_THREADS: rc = cli_args_u32(p, 1, 8, &o->threads); break;
    }
    return rc;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
    const struct rt_command *cmd = cli_find_command("compare");
    int npaths = 0;
    struct cli_args p;
    rt_compare_options_init(&a->options);
    cli_args_init(&p, cmd, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        int rc = 0;
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL && npaths == 2)
            return cli_usage_error(cmd, "too many arguments ('%s')", p.value);
        if (id == CLI_ARGS_POSITIONAL)
            a->paths[npaths++] = p.value;
        else if ((rc = parse_option(&p, id, a)))
            return rc;
    }
    if (npaths != 2)
        return cli_usage_error(cmd, "needs two images, GOLDEN.png and ACTUAL.png");
    for (int i = 0; a->diff_path && i < 2; i++)
        if (rt_same_file(a->diff_path, a->paths[i]))
            return cli_usage_error(cmd, "--diff %s would overwrite the %s image", a->diff_path,
                                   i ? "actual" : "golden");
    if (a->diff_path) { /* before the comparison, whose result would be lost */
        rt_status s = rt_output_file_check("--diff", a->diff_path);
        if (!rt_ok(&s)) {
            int rc = cli_usage_error(cmd, "%s", s.msg);
            rt_status_free(&s);
            return rc;
        }
    }
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
        return cli_exit_code(rc);
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
