/*
 * runner/diagnosis.h — the diagnoses of a run's failing frames
 * (runner/diagnosis.c, docs/FORMATS.md 7.4). Internal to runner/.
 */
#ifndef RT_RUNNER_DIAGNOSIS_H
#define RT_RUNNER_DIAGNOSIS_H

#include "exec.h"

/**
 * Diagnoses every failing frame of the run whose configuration (or
 * --diagnose) names a reference, at most 32, recording each with its result;
 * stops starting new ones once STOP() says so. Errors are the store's and
 * our own; a diagnosis that fails is recorded as outcome "error".
 */
RT_MUST_CHECK rt_status rt_run_diagnose_failures(struct rt_exec *x, bool (*stop)(void));

struct cJSON;
/** The upload's "diagnosis" member (docs/FORMATS.md 7.4), its images while *BUDGET (PNG bytes) lasts. */
struct cJSON *rt_run_diagnosis_json(const struct rt_run_diagnosis *diagnosis, size_t *budget);

void rt_run_diagnosis_free(struct rt_run_diagnosis *diagnosis);

#endif
