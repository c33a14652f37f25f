/* diagnose/answer.c — the first divergent draw as a person and a program
 * read it: its images on both sides before and after it, their diff, its
 * shaders' disassembly (spirv-dis, where installed), and the JSON of
 * docs/FORMATS.md 7.3. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose_internal.h"

/* spirv-dis DIR/shader_X.spv -o OUT/shader_X.spvasm; "" where it cannot run. */
static void disassemble(const struct rt_diagnose_options *o, const char *dir, const char *spv, char *out, size_t size)
{
    char in[PATH_MAX + 64], text[PATH_MAX + 64], log[PATH_MAX + 64];
    snprintf(in, sizeof in, "%s/%s", dir, spv);
    snprintf(text, sizeof text, "%s/%.*sspvasm", o->out_dir, (int)(strlen(spv) - 3), spv);
    snprintf(log, sizeof log, "%s/spirv-dis.log", o->out_dir);
    const char *argv[] = {"spirv-dis", in, "-o", text, NULL};
    out[0] = '\0';
    if (diag_spawn(argv, log, NULL) == 0 && strlen(text) < size)
        memcpy(out, text, strlen(text) + 1);
}

static void disassemble_all(const struct rt_diagnose_options *o, struct rt_diagnose_result *res, const char *dir)
{
    const cJSON *sh;
    int i = 0;
    cJSON_ArrayForEach(sh, cJSON_GetObjectItem(res->entry, "shaders")) {
        const char *spv = cJSON_GetStringValue(cJSON_GetObjectItem(sh, "spirv"));
        if (i < 8 && spv)
            disassemble(o, dir, spv, res->shader_text[i], sizeof res->shader_text[i]);
        i++;
    }
}

rt_status diag_answer(const struct rt_diagnose_options *o, struct rt_diagnose_result *res, uint32_t n, uint32_t before,
                      const struct diag_dump *after_test, const struct diag_dump *after_ref,
                      const struct diag_dump *before_test, const struct diag_dump *before_ref)
{
    struct rt_diagnose_images *im = &res->images;
    char probe[PATH_MAX];
    const char *ext = diag_file(after_test, n, res->role, probe, sizeof probe) ? ".png" : ".bin"; /* a buffer's */
    diag_file_of(after_test, n, res->role, ext, im->after_test, sizeof im->after_test);
    diag_file_of(after_ref, n, res->role, ext, im->after_reference, sizeof im->after_reference);
    if (before && before_test && before_ref) {
        diag_file_of(before_test, before, res->role, ext, im->before_test, sizeof im->before_test);
        diag_file_of(before_ref, before, res->role, ext, im->before_reference, sizeof im->before_reference);
    }
    if (im->after_test[0] && im->after_reference[0] && !strcmp(ext, ".png")) {
        snprintf(im->diff, sizeof im->diff, "%s/diff_draw_%04" PRIu32 "_%s.png", o->out_dir, n, res->role);
        rt_status s = diag_diff(im->after_reference, im->after_test, im->diff);
        if (!rt_ok(&s)) { /* a size mismatch has no diff: said by its empty path */
            im->diff[0] = '\0';
            rt_status_free(&s);
        }
    }
    disassemble_all(o, res, after_test->dir);
    return rt_ok_status();
}

static cJSON *path_or_null(const char *p) { return p[0] ? cJSON_CreateString(p) : cJSON_CreateNull(); }

static cJSON *number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static cJSON *first_divergent(const struct rt_diagnose_result *res)
{
    const cJSON *e = res->entry;
    cJSON *d = cJSON_CreateObject(), *images = cJSON_CreateObject(), *shaders = cJSON_CreateArray();
    cJSON_AddNumberToObject(d, "draw", res->draw);
    cJSON_AddItemToObject(d, "call", cJSON_Duplicate(cJSON_GetObjectItem(e, "call"), true));
    cJSON_AddItemToObject(d, "command", cJSON_Duplicate(cJSON_GetObjectItem(e, "command"), true));
    cJSON_AddItemToObject(d, "pipeline", cJSON_Duplicate(cJSON_GetObjectItem(e, "pipeline"), true));
    const cJSON *name = cJSON_GetObjectItem(e, "pipeline_name");
    cJSON_AddItemToObject(d, "pipeline_name", name ? cJSON_Duplicate(name, true) : cJSON_CreateNull());
    const cJSON *sh;
    int i = 0;
    cJSON_ArrayForEach(sh, cJSON_GetObjectItem(e, "shaders")) {
        cJSON *copy = cJSON_Duplicate(sh, true);
        cJSON_AddItemToObject(copy, "disassembly", i < 8 ? path_or_null(res->shader_text[i]) : cJSON_CreateNull());
        cJSON_AddItemToArray(shaders, copy);
        i++;
    }
    cJSON_AddItemToObject(d, "shaders", shaders);
    cJSON_AddItemToObject(d, "bindings", cJSON_Duplicate(cJSON_GetObjectItem(e, "bindings"), true));
    cJSON_AddItemToObject(d, "rendering", cJSON_Duplicate(cJSON_GetObjectItem(e, "rendering"), true));
    cJSON_AddStringToObject(d, "target", res->role);
    cJSON_AddItemToObject(d, "ssim", number_or_null(res->ssim));
    cJSON_AddItemToObject(d, "delta_e", number_or_null(res->delta_e));
    cJSON_AddNumberToObject(d, "diff_pixels", (double)res->diff_pixels);
    const struct rt_diagnose_images *im = &res->images;
    cJSON_AddItemToObject(images, "before_test", path_or_null(im->before_test));
    cJSON_AddItemToObject(images, "after_test", path_or_null(im->after_test));
    cJSON_AddItemToObject(images, "before_reference", path_or_null(im->before_reference));
    cJSON_AddItemToObject(images, "after_reference", path_or_null(im->after_reference));
    cJSON_AddItemToObject(images, "diff", path_or_null(im->diff));
    cJSON_AddItemToObject(d, "images", images);
    return d;
}

char *rt_diagnose_json(const struct rt_diagnose_options *o, const struct rt_diagnose_result *res)
{
    cJSON *j = cJSON_CreateObject(), *ref = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "frame", (double)o->frame);
    cJSON_AddNumberToObject(j, "draws", (double)res->draws);
    cJSON_AddNumberToObject(j, "replays", res->replays);
    cJSON_AddNumberToObject(j, "dumps", res->dumps);
    cJSON_AddStringToObject(ref, "kind", o->reference_kind);
    cJSON_AddStringToObject(ref, "value", o->reference_value ? o->reference_value : "");
    cJSON_AddItemToObject(j, "reference", ref);
    cJSON_AddNumberToObject(t, "ssim", res->ssim_threshold);
    cJSON_AddNumberToObject(t, "tile_ssim", res->tile_threshold);
    cJSON_AddNumberToObject(t, "delta_e", res->delta_e_threshold);
    cJSON_AddNumberToObject(t, "calibrated_from", res->calibrated_from);
    cJSON_AddBoolToObject(t, "exact", res->exact);
    cJSON_AddItemToObject(j, "thresholds", t);
    cJSON_AddItemToObject(j, "first_divergent", res->diverged ? first_divergent(res) : cJSON_CreateNull());
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

void rt_diagnose_print(FILE *out, const struct rt_diagnose_options *o, const struct rt_diagnose_result *res)
{
    fprintf(out, "frame %" PRIu64 ": %" PRIu64 " draws, %" PRIu32 " replays, %" PRIu32 " draw images; against %s %s\n",
            o->frame, res->draws, res->replays, res->dumps, o->reference_kind,
            o->reference_value ? o->reference_value : "");
    if (!res->diverged) {
        if (res->exact)
            fprintf(out, "no draw diverges (judged pixel for pixel)\n");
        else
            fprintf(out, "no draw diverges (thresholds: ssim %.4f, worst tile %.4f, delta E %.2f)\n",
                    res->ssim_threshold, res->tile_threshold, res->delta_e_threshold);
        return;
    }
    const cJSON *e = res->entry;
    char threshold_text[96];
    if (res->exact)
        snprintf(threshold_text, sizeof threshold_text, "judged pixel for pixel");
    else
        snprintf(threshold_text, sizeof threshold_text, "thresholds ssim %.4f, delta E %.2f", res->ssim_threshold,
                 res->delta_e_threshold);
    const char *pipeline = cJSON_GetStringValue(cJSON_GetObjectItem(e, "pipeline"));
    const char *pipeline_name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "pipeline_name"));
    char pipeline_text[96];
    /* named as `retrace dump` names it, so the dump's lines can be found by it; the id after */
    snprintf(pipeline_text, sizeof pipeline_text, "%s%s%s%s", pipeline_name ? pipeline_name : "",
             pipeline_name && pipeline ? " (" : "", pipeline ? pipeline : pipeline_name ? "" : "none",
             pipeline_name && pipeline ? ")" : "");
    fprintf(out, "first divergent draw: %" PRIu32 " of %" PRIu64 ": call %.0f %s, pipeline %s; %s ssim %.6f, "
            "delta E %.2f, %" PRIu64 " pixels differ (%s)\n", res->draw, res->draws,
            cJSON_GetNumberValue(cJSON_GetObjectItem(e, "call")),
            cJSON_GetStringValue(cJSON_GetObjectItem(e, "command")) ? cJSON_GetStringValue(cJSON_GetObjectItem(e, "command")) : "?",
            pipeline_text, res->role, res->ssim, res->delta_e, res->diff_pixels, threshold_text);
    const cJSON *sh;
    int i = 0;
    cJSON_ArrayForEach(sh, cJSON_GetObjectItem(e, "shaders")) {
        fprintf(out, "  shader %s %s%s%s\n", cJSON_GetStringValue(cJSON_GetObjectItem(sh, "stage")),
                cJSON_GetStringValue(cJSON_GetObjectItem(sh, "xxh128")) ? cJSON_GetStringValue(cJSON_GetObjectItem(sh, "xxh128")) : "?",
                i < 8 && res->shader_text[i][0] ? ": " : "", i < 8 ? res->shader_text[i] : "");
        i++;
    }
    const struct rt_diagnose_images *im = &res->images;
    fprintf(out, "  after:  %s | %s\n  before: %s | %s\n  diff:   %s\n", im->after_test, im->after_reference,
            im->before_test[0] ? im->before_test : "(first draw)", im->before_reference, im->diff);
}
