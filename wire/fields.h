/*
 * wire/fields.h — what the decoders of wire/ share: typed readers of one
 * JSON member that name the member by its path when it is wrong, and the
 * writers of numbers that may be "not measured". Private to wire/.
 */
#ifndef RT_WIRE_FIELDS_H
#define RT_WIRE_FIELDS_H

#include <cjson/cJSON.h>

#include "wire.h"

/** Where a field sits in the document, for messages: "results[3]" or "run". */
struct rt_wire_path {
    const char *object;
    long index; /* -1 = not an array element */
};

rt_status rt_wire_bad(const struct rt_wire_path *at, const char *key, const char *what);

/** An optional string into ARENA: NULL when absent or null. REQUIRED refuses both. */
RT_MUST_CHECK rt_status rt_wire_string(struct rt_arena *arena, const cJSON *obj,
                                       const struct rt_wire_path *at, const char *key,
                                       bool required, const char **out);

/** An optional finite number in [LO, HI]: DEF when absent or null. */
RT_MUST_CHECK rt_status rt_wire_number(const cJSON *obj, const struct rt_wire_path *at,
                                       const char *key, double lo, double hi, double def,
                                       double *out);

/** An optional ISO 8601 UTC time ("YYYY-MM-DDTHH:MM:SSZ"). */
RT_MUST_CHECK rt_status rt_wire_time(struct rt_arena *arena, const cJSON *obj,
                                     const struct rt_wire_path *at, const char *key,
                                     bool required, const char **out);

/** A store hash (32 lower-case hex digits) into OUT; "" when absent and optional. */
RT_MUST_CHECK rt_status rt_wire_hash(const cJSON *obj, const struct rt_wire_path *at,
                                     const char *key, bool required,
                                     char out[RT_STORE_HASH_HEX + 1]);

/** An optional base64 PNG that decodes, no larger than RT_WIRE_MAX_IMAGE_SIDE a side. */
RT_MUST_CHECK rt_status rt_wire_png(struct rt_arena *arena, const cJSON *obj,
                                    const struct rt_wire_path *at, const char *key,
                                    const uint8_t **out, size_t *size_out, uint32_t *width,
                                    uint32_t *height);

/** NAN -> null, else the number. */
cJSON *rt_wire_number_or_null(double v);

/** NULL -> null, else the string. */
cJSON *rt_wire_string_or_null(const char *s);

/** A golden as JSON: with its base64 png (uploads) or its size (sync answers). */
cJSON *rt_wire_golden_json(const struct rt_wire_golden *g, bool with_png);

/** A golden of an upload or of a sync answer (WITH_PNG: the upload's, whose
 * bytes must decode and hash to its hash). */
RT_MUST_CHECK rt_status rt_wire_decode_golden(struct rt_arena *a, const cJSON *o,
                                              const struct rt_wire_path *at, bool with_png,
                                              struct rt_wire_golden *g);

#endif
