/*
 * wire/include/wire.h — the JSON that crosses the farm's network, encoded and decoded
 * in one place: the run upload (docs/FORMATS.md sections 2 and 5.2, what
 * `retrace run --server` sends and `retrace serve` records) and the golden
 * sync answer (section 5.1, what the server sends and the runner applies).
 *
 * Owns: the keys, their types and ranges, base64 of images, the checks an
 * upload must pass (each failure names the field by its path, such as
 * "results[3].ssim: expected a number from -1 to 1"), and the one rule that
 * says which result is a regression (rt_wire_regression), which the runner
 * applies and the server re-applies to what it receives.
 * Must not touch: SQL, HTTP, files. It reads store.h for the names of
 * statuses and kinds only.
 * Entry points: rt_upload_encode / rt_upload_decode, rt_sync_encode /
 * rt_sync_decode, rt_upload_recompute.
 */
#ifndef RT_WIRE_H
#define RT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "status.h"
#include "store.h"

struct cJSON;

/** Bounds an upload must keep (docs/FORMATS.md section 5.2). */
#define RT_WIRE_MAX_TEXT 4096
#define RT_WIRE_MAX_RESULTS 100000
#define RT_WIRE_MAX_IMAGE_SIDE 16384u

/** A golden as an upload carries it (with png) or a sync answer lists it (without). */
struct rt_wire_golden {
    int64_t id; /* the server's id (sync only), 0 in uploads */
    const char *trace;
    uint32_t frame;
    const char *device_key; /* "" = any device */
    enum rt_golden_status status;
    char hash[RT_STORE_HASH_HEX + 1];
    uint64_t size;
    uint32_t width, height;
    const char *approved_by; /* "" when unknown */
    const char *approved_at; /* ISO 8601, or NULL */
    const uint8_t *png;      /* uploads only; NULL in a sync answer */
    size_t png_size;
};

/** What an upload says of one result beyond what the store records. */
struct rt_wire_extra {
    enum rt_expect_kind expected; /* also in the result's r.expected, by name */
    const char *expect_note;      /* "" or NULL when none */
    bool images_left_out;         /* the image budget left this result's images out */
};

struct rt_upload {
    struct rt_arena arena;      /* every string and image of a decoded upload */
    struct rt_store_upload rec; /* the run, its results and goldens, as the store records them */
    struct rt_wire_extra *extra; /* one per rec.results */
};

/** Whether a result of STATUS counts as a regression under EXPECTED: failures
 * (fail, error, crash, timeout) are, unless flaky excuses any of them, crash a
 * crash or hang a timeout. The runner and the server both decide with this. */
bool rt_wire_regression(enum rt_result_status status, enum rt_expect_kind expected);

/** The upload as JSON text (malloc'd, free() it). Writes what U holds: the
 * caller has already chosen which images to send. */
RT_MUST_CHECK rt_status rt_upload_encode(const struct rt_upload *u, char **json_out);

/**
 * Parses and checks an upload. Every string and image lands in OUT's arena
 * (rt_upload_finish frees it all). RT_ERR_BAD_INPUT "FIELD: what is wrong"
 * for malformed JSON, a missing or mistyped key, a value out of range, an
 * image that does not decode as a PNG or is too large, a golden whose hash is
 * not its image's.
 */
RT_MUST_CHECK rt_status rt_upload_decode(const char *json, size_t size, struct rt_upload *out);

/** As rt_upload_decode, from a parsed tree. */
RT_MUST_CHECK rt_status rt_upload_decode_tree(const struct cJSON *root, struct rt_upload *out);

/** Sets each result's regression by rt_wire_regression and the outcome from
 * them ("aborted" stays, else "failed" with any regression, else "passed"). */
void rt_upload_recompute(struct rt_upload *u);

void rt_upload_finish(struct rt_upload *u);

/* ---- the sync answer (docs/FORMATS.md section 5.1) ---------------------- */

struct rt_wire_expectation {
    const char *trace;
    const char *device_key;
    enum rt_expect_kind kind;
    const char *note, *set_by, *updated_at;
};

struct rt_sync_set {
    struct rt_arena arena;
    const char *device_key;
    int64_t seq;
    bool unchanged; /* the ?since= answer: nothing newer than seq */
    struct rt_wire_golden *goldens;
    size_t golden_count;
    struct rt_wire_expectation *expectations;
    size_t expectation_count;
};

RT_MUST_CHECK rt_status rt_sync_encode(const struct rt_sync_set *set, char **json_out);
RT_MUST_CHECK rt_status rt_sync_decode(const char *json, size_t size, struct rt_sync_set *out);
void rt_sync_finish(struct rt_sync_set *set);

/* ---- shared helpers ------------------------------------------------------ */

/** True for "YYYY-MM-DDTHH:MM:SSZ" with fields in range. */
bool rt_wire_valid_time(const char *text);

/** Standard base64 with padding (malloc'd text), and its strict decoder into ARENA. */
char *rt_wire_base64_encode(const void *data, size_t size);
bool rt_wire_base64_decode(struct rt_arena *arena, const char *text, uint8_t **out, size_t *size_out);

#endif
