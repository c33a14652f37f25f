/*
 * server/api_diagnosis.h — the API of failing results' diagnoses
 * (server/api_diagnosis.c, docs/FORMATS.md 7.4). Internal to server/.
 */
#ifndef RT_SERVER_API_DIAGNOSIS_H
#define RT_SERVER_API_DIAGNOSIS_H

#include "server_internal.h"

/**
 * GET /api/results/ID/diagnosis, /api/results/ID/diagnosis/ROLE and
 * /api/runs/ID/diagnoses; false when SEGMENTS is none of them.
 */
bool rt_api_diagnosis_read(struct rt_request *req, char **segments, int count, enum MHD_Result *result);

/**
 * POST /api/runs: the upload's diagnoses are checked first (400 naming the
 * field), then the run goes to rt_api_upload, then the diagnoses are
 * recorded with the run's results (a repeat changes none).
 */
enum MHD_Result rt_api_diagnosis_upload(struct rt_request *req, char **segments, int count);

#endif
