/* diagnose/diagnose_internal.h — what the files of diagnose/ share. */
#ifndef RT_DIAGNOSE_INTERNAL_H
#define RT_DIAGNOSE_INTERNAL_H

#include <cjson/cJSON.h>

#include "diagnose.h"

/* One replay's dump: where it is and its draws.json. */
struct diag_dump {
    char dir[PATH_MAX];
    cJSON *index;
};

/* The noise of the draws that agreed so far, and the thresholds it gives. */
struct diag_thresholds {
    double ssim, tile, delta_e;
    double worst_ssim, worst_tile, worst_delta_e; /* over agreeing draws' images */
    uint32_t agreed;
    bool exact; /* any differing pixel (or alpha) diverges; SSIM and delta E are only reported */
};

/* What comparing one draw's images on both sides found. */
struct diag_verdict {
    bool compared, diverges;
    double ssim, tile, delta_e; /* of its worst image */
    uint64_t diff_pixels; /* for a buffer: the bytes that differ */
    char role[16];
};

/* side.c */
/** Replays SIDE to frame F dumping draws ONLY (COUNT of them) into DIR; reads its draws.json. */
rt_status diag_replay(const struct rt_diagnose_options *o, const struct rt_diagnose_side *side, const char *dir,
                      const uint32_t *only, uint32_t count, struct diag_dump *out) RT_MUST_CHECK;
void diag_dump_finish(struct diag_dump *d);
/** Draw N's entry in a dump, or NULL. */
cJSON *diag_entry(const struct diag_dump *d, uint32_t n);
/** The path of ROLE's PNG of draw N in D (false where there is none). */
bool diag_file(const struct diag_dump *d, uint32_t n, const char *role, char *path, size_t size);
/** As diag_file, for the file ending EXT (".png", ".bin": a buffer's bytes). */
bool diag_file_of(const struct diag_dump *d, uint32_t n, const char *role, const char *ext, char *path,
                  size_t size);
/** Runs PROGRAM ARGS... (NULL-terminated) with its output in LOG; its exit status, or -1. */
int diag_spawn(const char *const *argv, const char *log, const char *icd);

/* verdict.c */
void diag_thresholds_init(struct diag_thresholds *t, bool exact);
/** Compares draw N of TEST and REF under T; an agreeing draw widens T (the noise before the next). */
rt_status diag_judge(const struct diag_dump *test, const struct diag_dump *ref, uint32_t n,
                     struct diag_thresholds *t, struct diag_verdict *v) RT_MUST_CHECK;
/** Writes the diff image of ROLE between two PNGs to PATH. */
rt_status diag_diff(const char *reference_png, const char *test_png, const char *path) RT_MUST_CHECK;

/* answer.c */
/** Fills RES's images and shader disassembly for draw N (before: draw N-1's dumps, may be NULL). */
/* N the divergent draw, BEFORE the last that agreed before it in running order (0: none). */
rt_status diag_answer(const struct rt_diagnose_options *o, struct rt_diagnose_result *res, uint32_t n, uint32_t before,
                      const struct diag_dump *after_test, const struct diag_dump *after_ref,
                      const struct diag_dump *before_test, const struct diag_dump *before_ref) RT_MUST_CHECK;

#endif
