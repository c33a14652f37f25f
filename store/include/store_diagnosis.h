/*
 * store/include/store_diagnosis.h — a failing result's diagnosis (issue 19
 * part 4, docs/FORMATS.md section 7.4, store schema 8): the first draw of
 * the frame whose output diverges from a reference replay, its command,
 * pipeline and shaders, and the draw's images (before and after, both
 * sides, and their diff) kept in schema 7's `images` once per content hash.
 *
 * Owns (store/store_diagnosis.c): the `diagnoses` and `diagnosis_images`
 * rows and the JSON the dashboard reads them as.
 * Must not touch: the results themselves (a diagnosis never changes a
 * result's status), how a diagnosis is made (diagnose/, runner/).
 */
#ifndef RT_STORE_DIAGNOSIS_H
#define RT_STORE_DIAGNOSIS_H

#include "store.h"

enum rt_diagnosis_outcome {
    RT_DIAGNOSIS_DIVERGED, /* a draw diverges: draw .. images are set */
    RT_DIAGNOSIS_NONE,     /* no draw diverges beyond the thresholds */
    RT_DIAGNOSIS_NO_DRAWS, /* the frame has no draws of its own (re-submitted command buffers) */
    RT_DIAGNOSIS_ERROR,    /* the diagnosis failed: message says why */
};
#define RT_DIAGNOSIS_OUTCOMES 4

enum rt_diagnosis_role {
    RT_DIAG_BEFORE_TEST,
    RT_DIAG_AFTER_TEST,
    RT_DIAG_BEFORE_REFERENCE,
    RT_DIAG_AFTER_REFERENCE,
    RT_DIAG_DIFF,
};
#define RT_DIAGNOSIS_ROLES 5

const char *rt_diagnosis_outcome_name(enum rt_diagnosis_outcome outcome);
bool rt_diagnosis_outcome_parse(const char *name, enum rt_diagnosis_outcome *out);
const char *rt_diagnosis_role_name(enum rt_diagnosis_role role);
bool rt_diagnosis_role_parse(const char *name, enum rt_diagnosis_role *out);

/** One diagnosis as recorded; strings may be NULL (stored as NULL, message as ""). */
struct rt_diagnosis {
    const char *reference;          /* "device:llvmpipe", "config:...", "icd:FILE" */
    enum rt_diagnosis_outcome outcome;
    int64_t draws, replays;         /* -1 = not known */
    int64_t draw, call;             /* 0 / -1 = none (not diverged) */
    const char *command, *pipeline, *target;
    const char *shaders;            /* the JSON array of section 7.4, or NULL */
    double ssim, delta_e;           /* NAN = none */
    const char *message;
    const uint8_t *png[RT_DIAGNOSIS_ROLES]; /* NULL = no such image */
    size_t png_size[RT_DIAGNOSIS_ROLES];
};

/**
 * Records D for the result of run RUN_ID with (TRACE, CONFIGURATION, FRAME)
 * in one transaction (nested in the caller's, if any). REPLACE false keeps a
 * diagnosis the result already has (a repeated upload changes nothing);
 * *result_out is the result's id, 0 when the run has no such result (then
 * nothing is stored and the status is OK).
 */
RT_MUST_CHECK rt_status rt_store_diagnosis_put(struct rt_store *store, int64_t run_id, const char *trace,
                                               const char *configuration, uint32_t frame,
                                               const struct rt_diagnosis *d, bool replace,
                                               int64_t *result_out);

/** RESULT_ID's diagnosis as the JSON object of GET /api/results/ID/diagnosis; *out NULL when none. */
RT_MUST_CHECK rt_status rt_store_diagnosis_json(struct rt_store *store, int64_t result_id, struct cJSON **out);

/** Whether result RESULT_ID exists (a result without a diagnosis is not an unknown one). */
RT_MUST_CHECK rt_status rt_store_diagnosis_result_exists(struct rt_store *store, int64_t result_id, bool *exists_out);

/** The PNG of ROLE (malloc'd) and its content hash; *png_out NULL when there is none. */
RT_MUST_CHECK rt_status rt_store_diagnosis_image(struct rt_store *store, int64_t result_id,
                                                 enum rt_diagnosis_role role, uint8_t **png_out,
                                                 size_t *size_out, char hash_out[RT_STORE_HASH_HEX + 1]);

/** The diagnoses of run RUN_ID's results (result id order, LIMIT from OFFSET) as a JSON array. */
RT_MUST_CHECK rt_status rt_store_run_diagnoses(struct rt_store *store, int64_t run_id, uint32_t limit,
                                               uint32_t offset, struct cJSON **out);

#endif
