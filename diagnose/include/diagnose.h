/*
 * diagnose/include/diagnose.h — the first draw of a frame whose output
 * diverges between two replays (docs/FORMATS.md section 7.3).
 *
 * Owns: the search over a frame's draws (rounds of up to PROBES evenly
 * spaced draws, each round one replay per side with `retrace replay
 * --dump-draws F --dump-only LIST`, narrowing to the draws between the last
 * probe that agreed and the first that did not), the per-draw verdict
 * (compare/'s SSIM, worst tile and delta E on every image both sides saved,
 * thresholds widened by the noise of the agreeing draws before), the images
 * and the JSON of the answer. Every replay is a child process (a crash on
 * one side is that side's error, not this process's).
 * Must not touch: the replay engine's state (it reads draws.json), the
 * store, the CLI's exit codes.
 */
#ifndef RT_DIAGNOSE_H
#define RT_DIAGNOSE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define RT_DIAGNOSE_MAX_ARGS 64

/* One side: the replay arguments that make it (--device, --workarounds, ...). */
struct rt_diagnose_side {
    const char *args[RT_DIAGNOSE_MAX_ARGS];
    uint32_t arg_count;
    const char *icd; /* VK_ICD_FILENAMES for its replays, or NULL */
};

/* How a draw's images are judged. AUTO: EXACT when the reference is another
 * configuration (one device and driver replay deterministically: any pixel
 * that differs is a divergence, so a draw that changes a few pixels is found),
 * TOLERANT otherwise (SSIM, worst tile and delta E, widened by noise). */
enum rt_diagnose_match { RT_DIAGNOSE_MATCH_AUTO, RT_DIAGNOSE_MATCH_EXACT, RT_DIAGNOSE_MATCH_TOLERANT };

struct rt_diagnose_options {
    const char *retrace; /* the binary that replays (/proc/self/exe) */
    const char *trace;
    uint64_t frame;
    const char *out_dir;            /* made if missing */
    struct rt_diagnose_side test, reference;
    const char *reference_kind;     /* "device", "config", "icd" */
    const char *reference_value;
    uint32_t probes;                /* per round; 0 = 16 */
    FILE *log;                      /* a line per round, or NULL */
    enum rt_diagnose_match match;   /* 0 (AUTO) where not set */
};

struct rt_diagnose_images {
    char before_test[PATH_MAX], after_test[PATH_MAX], before_reference[PATH_MAX], after_reference[PATH_MAX],
        diff[PATH_MAX]; /* "" where there is none (no draw before the first) */
};

struct cJSON;

struct rt_diagnose_result {
    uint64_t draws;             /* the frame's */
    uint32_t replays, dumps;    /* replays made (both sides), draw images saved */
    double ssim_threshold, tile_threshold, delta_e_threshold;
    uint32_t calibrated_from;   /* agreeing draws the thresholds were widened on */
    bool diverged;
    uint32_t draw;              /* the first divergent draw */
    double ssim, delta_e;       /* its worst image's */
    char role[16];              /* which image */
    struct cJSON *entry;        /* its draws.json entry (test side) */
    struct rt_diagnose_images images;
    char shader_text[8][PATH_MAX]; /* spirv-dis of its shaders ("" where not made) */
    bool exact;                 /* judged pixel for pixel (enum rt_diagnose_match) */
    uint64_t diff_pixels;       /* the divergent image's pixels that differ */
};

/** Whether O's draws are judged pixel for pixel (its match, AUTO resolved). */
bool rt_diagnose_exact(const struct rt_diagnose_options *o);

/** Runs the search. Errors: RT_ERR_CANNOT_REPLAY (a side's replay failed, its log named), RT_ERR_USAGE. */
rt_status rt_diagnose_run(const struct rt_diagnose_options *o, struct rt_diagnose_result *out) RT_MUST_CHECK;
/** The answer as one JSON object (malloc'd text), or NULL when out of memory. */
char *rt_diagnose_json(const struct rt_diagnose_options *o, const struct rt_diagnose_result *res);
/** The answer for a person, a few lines. */
void rt_diagnose_print(FILE *out, const struct rt_diagnose_options *o, const struct rt_diagnose_result *res);
void rt_diagnose_result_finish(struct rt_diagnose_result *res);

#endif
