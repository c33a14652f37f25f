/*
 * runner/internal.h — what the files of runner/ share and nobody else sees:
 * trace downloads, frame comparison against the store, HTTP posts.
 */
#ifndef RT_RUNNER_INTERNAL_H
#define RT_RUNNER_INTERNAL_H

#include "runner.h"

/**
 * Makes sure PATH holds URL's bytes whose SHA-256 is SHA256 (hex): reused
 * when the file there already has that hash, otherwise downloaded (to a
 * temporary file, verified, renamed). A download that fails is
 * RT_ERR_CANNOT_REPLAY naming the URL; wrong bytes are RT_ERR_BAD_INPUT
 * "sha256 mismatch" and are not kept.
 */
RT_MUST_CHECK rt_status rt_fetch_trace(const char *url, const char *sha256, const char *path);

/** What a frame is compared with and how. */
struct rt_frame_check {
    const char *trace;
    const char *device_key; /* "" = the device-independent goldens */
    double threshold, tile_threshold;
    bool update_goldens;
};

/**
 * Compares the PNG at PNG_PATH with the accepted goldens of (trace, frame)
 * for this device; the best match wins (a passing golden with the highest
 * SSIM, else the highest SSIM). Fills OUT: pass / fail / new with metrics,
 * and the actual and diff images of a failure (the actual of a new one).
 * With update_goldens, a new frame's image becomes a golden for the device.
 */
RT_MUST_CHECK rt_status rt_frame_compare(struct rt_store *store, const struct rt_frame_check *check,
                                         uint32_t frame, const char *png_path, struct rt_run_frame *out);

/** The manifest's configurations as the JSON array of docs/FORMATS.md (malloc'd), or NULL. */
char *rt_upload_configurations_json(const struct rt_manifest *manifest);

/** An HTTP answer: status code and (truncated) body. */
struct rt_http_answer {
    long code; /* 0 when the server could not be reached */
    char body[1024];
    char error[256]; /* libcurl's reason when code is 0 */
};

/** An HTTP GET's answer: the whole body (at most 64 MiB) and its ETag. */
struct rt_http_get {
    long code; /* 0 when the server could not be reached */
    char *body; /* NUL-terminated, malloc'd; NULL when empty */
    size_t size;
    char etag[200];
    char error[256];
};

/** GETs URL (with If-None-Match when given). Never fails on an answer: look at code. */
RT_MUST_CHECK rt_status rt_http_get(const char *url, const char *if_none_match,
                                    struct rt_http_get *answer);
void rt_http_get_finish(struct rt_http_get *answer);

RT_MUST_CHECK rt_status rt_http_post_json(const char *url, const char *token, const char *body,
                                          struct rt_http_answer *answer);

#endif
