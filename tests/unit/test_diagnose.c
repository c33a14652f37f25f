/* Unit tests for diagnose/'s per-draw verdict (verdict.c): a draw that
 * changes a few pixels diverges when judged exactly (against another
 * configuration on one device) and passes the tolerant thresholds meant for
 * cross-device noise; which way AUTO resolves (rt_diagnose_exact). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose_internal.h"
#include "png_io.h"

/* A dump of one draw (number 1, role color0) in a fresh directory, its image
 * a smooth 256x256 gradient with CHANGED pixels 40 levels redder. */
static void make_dump(const char *root, const char *name, uint32_t changed, struct diag_dump *out)
{
    snprintf(out->dir, sizeof out->dir, "%s/%s", root, name);
    cr_assert_eq(mkdir(out->dir, 0777), 0);
    struct rt_image im = {256, 256, malloc(256 * 256 * 4)};
    cr_assert(im.rgba);
    for (uint32_t y = 0; y < 256; y++)
        for (uint32_t x = 0; x < 256; x++) {
            uint8_t *p = im.rgba + 4 * (y * 256 + x);
            p[0] = (uint8_t)(x / 2), p[1] = (uint8_t)(y / 2), p[2] = 90, p[3] = 255;
        }
    for (uint32_t i = 0; i < changed; i++)
        im.rgba[4 * (128 * 256 + 40 + i * 37)] += 40;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/draw_0001_color0.png", out->dir);
    rt_status s = rt_png_write_file(path, &im);
    cr_assert(rt_ok(&s), "%s", s.msg);
    rt_image_finish(&im);
    out->index = cJSON_Parse("{\"frame\": 2, \"frame_draws\": 1, \"draws\": [{\"draw\": 1, \"files\": "
                             "[{\"path\": \"draw_0001_color0.png\", \"role\": \"color0\"}]}]}");
    cr_assert(out->index);
}

static char *temp_root(void)
{
    static char root[] = "/tmp/rt_diagnose_unit_XXXXXX";
    strcpy(root, "/tmp/rt_diagnose_unit_XXXXXX");
    cr_assert(mkdtemp(root));
    return root;
}

static struct diag_verdict judge(uint32_t changed, bool exact)
{
    char *root = temp_root();
    struct diag_dump test, ref;
    make_dump(root, "test", changed, &test);
    make_dump(root, "ref", 0, &ref);
    struct diag_thresholds t;
    diag_thresholds_init(&t, exact);
    struct diag_verdict v;
    rt_status s = diag_judge(&test, &ref, 1, &t, &v);
    cr_assert(rt_ok(&s), "%s", s.msg);
    diag_dump_finish(&test);
    diag_dump_finish(&ref);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    cr_assert_eq(system(cmd), 0);
    return v;
}

Test(diagnose, three_changed_pixels_diverge_when_judged_exactly)
{
    struct diag_verdict v = judge(3, true);
    cr_assert(v.compared && v.diverges, "3 pixels changed: ssim %f, delta E %f", v.ssim, v.delta_e);
    cr_assert_eq(v.diff_pixels, 3);
    cr_assert_str_eq(v.role, "color0");
}

Test(diagnose, three_changed_pixels_are_within_the_tolerant_thresholds)
{
    /* why exact matters: the frame verdict's SSIM and tile delta E pass them */
    struct diag_verdict v = judge(3, false);
    cr_assert(v.compared && !v.diverges, "ssim %f, delta E %f", v.ssim, v.delta_e);
    cr_assert_gt(v.ssim, 0.99);
}

Test(diagnose, identical_images_agree_either_way)
{
    for (int exact = 0; exact < 2; exact++) {
        struct diag_verdict v = judge(0, exact);
        cr_assert(v.compared && !v.diverges && v.diff_pixels == 0);
    }
}

Test(diagnose, auto_is_exact_against_a_configuration_only)
{
    struct rt_diagnose_options o = {.reference_kind = "config"};
    cr_assert(rt_diagnose_exact(&o));
    o.reference_kind = "device";
    cr_assert(!rt_diagnose_exact(&o));
    o.reference_kind = "icd";
    cr_assert(!rt_diagnose_exact(&o));
    o.match = RT_DIAGNOSE_MATCH_EXACT;
    cr_assert(rt_diagnose_exact(&o));
    o.reference_kind = "config";
    o.match = RT_DIAGNOSE_MATCH_TOLERANT;
    cr_assert(!rt_diagnose_exact(&o));
}
