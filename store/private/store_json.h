/*
 * store/private/store_json.h — the dashboard's JSON written straight into one
 * growing buffer (store_json.c), for the pages a farm asks for most (runs,
 * a run, a trace's history): no tree of nodes to build, print and free, and
 * numbers printed exactly without printf/sscanf round trips (issue 18: most
 * of those pages' time was cJSON). Strings are escaped as cJSON escapes them
 * and made valid UTF-8 as they are written (a byte that starts no valid
 * sequence becomes '?'), so the text needs no scrub afterwards.
 *
 * Owns: JSON text syntax (separators, escapes, numbers). Must not touch:
 * SQLite or the store (store_dash_rows.c turns rows into calls of these).
 * Private to store/ (and its unit test, tests/unit/test_store_json.c).
 */
#ifndef RT_STORE_JSON_H
#define RT_STORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_jw {
    char *buf;
    size_t len, cap;
    bool failed;    /* out of memory: the rest is dropped, rt_jw_take answers NULL */
    bool after_key; /* a key was written: its value needs no separator */
    int depth;      /* open objects and arrays, at most 63 */
    uint64_t empty; /* bit D: nothing written yet at depth D */
};

void rt_jw_init(struct rt_jw *w);
void rt_jw_free(struct rt_jw *w);
/** The text written (NUL-terminated, *len_out its length, taken over by the
 * caller: free()), or NULL when something ran out of memory or a container
 * is still open; the writer is empty afterwards. */
char *rt_jw_take(struct rt_jw *w, size_t *len_out);

void rt_jw_object(struct rt_jw *w);
void rt_jw_end_object(struct rt_jw *w);
void rt_jw_array(struct rt_jw *w);
void rt_jw_end_array(struct rt_jw *w);
/** An object member's name (ours: plain ASCII, never escaped); the next
 * value written is its value. */
void rt_jw_key(struct rt_jw *w, const char *key);
void rt_jw_key_n(struct rt_jw *w, const char *key, size_t n);
/** A string (NULL: null); bytes that are no UTF-8 become '?'. */
void rt_jw_string(struct rt_jw *w, const char *s);
void rt_jw_string_n(struct rt_jw *w, const char *s, size_t n);
void rt_jw_int(struct rt_jw *w, int64_t value);
/** A number that reads back as exactly VALUE; null when not finite. */
void rt_jw_double(struct rt_jw *w, double value);
void rt_jw_bool(struct rt_jw *w, bool value);
void rt_jw_null(struct rt_jw *w);
/** JSON text already known to be one valid value (checked by the caller),
 * copied with its non-UTF-8 bytes made '?'. */
void rt_jw_raw(struct rt_jw *w, const char *json, size_t n);
/** The same for text known to be valid UTF-8 already (written by a writer). */
void rt_jw_raw_utf8(struct rt_jw *w, const char *json, size_t n);

/**
 * VALUE (finite) as the JSON number rt_jw_double writes into OUT (at least
 * 32 bytes, NUL-terminated); its length. Integers of up to 2^53 print as
 * integers, other numbers in the fewest decimal places that read back
 * exactly where such a short form is found cheaply, else in 17 significant
 * digits (which always read back exactly).
 */
size_t rt_json_format_double(double value, char *out);

#endif
