/*
 * wire/fields.c — typed readers of one JSON member, base64, and time stamps
 * (see fields.h). Every refusal names the member by its path.
 */
#include "fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_io.h"

rt_status rt_wire_bad(const struct rt_wire_path *at, const char *key, const char *what)
{
    if (at->index >= 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s[%ld].%s: %s", at->object, at->index, key, what);
    if (at->object && *at->object)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s.%s: %s", at->object, key, what);
    return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", key, what);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return item && !cJSON_IsNull(item) ? item : NULL;
}

rt_status rt_wire_string(struct rt_arena *arena, const cJSON *obj, const struct rt_wire_path *at,
                         const char *key, bool required, const char **out)
{
    const cJSON *item = member(obj, key);
    *out = NULL;
    if (!item)
        return required ? rt_wire_bad(at, key, "missing") : rt_ok_status();
    if (!cJSON_IsString(item))
        return rt_wire_bad(at, key, "expected a string");
    size_t n = strlen(item->valuestring);
    if (n > RT_WIRE_MAX_TEXT)
        return rt_wire_bad(at, key, "longer than 4096 bytes");
    if (required && n == 0)
        return rt_wire_bad(at, key, "empty");
    *out = rt_arena_strndup(arena, item->valuestring, n);
    return *out ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status rt_wire_number(const cJSON *obj, const struct rt_wire_path *at, const char *key,
                         double lo, double hi, double def, double *out)
{
    const cJSON *item = member(obj, key);
    *out = def;
    if (!item)
        return rt_ok_status();
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < lo ||
        item->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "expected a number from %g to %g", lo, hi);
        return rt_wire_bad(at, key, what);
    }
    *out = item->valuedouble;
    return rt_ok_status();
}

static bool digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

bool rt_wire_valid_time(const char *t)
{
    if (!t || strlen(t) != 20 || !digits(t, 4) || t[4] != '-' || !digits(t + 5, 2) || t[7] != '-' ||
        !digits(t + 8, 2) || t[10] != 'T' || !digits(t + 11, 2) || t[13] != ':' ||
        !digits(t + 14, 2) || t[16] != ':' || !digits(t + 17, 2) || t[19] != 'Z')
        return false;
    int month = atoi(t + 5), day = atoi(t + 8), hour = atoi(t + 11), min = atoi(t + 14),
        sec = atoi(t + 17);
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && min <= 59 &&
           sec <= 60;
}

rt_status rt_wire_time(struct rt_arena *arena, const cJSON *obj, const struct rt_wire_path *at,
                       const char *key, bool required, const char **out)
{
    RT_TRY(rt_wire_string(arena, obj, at, key, required, out));
    if (*out && !rt_wire_valid_time(*out))
        return rt_wire_bad(at, key, "expected a UTC time YYYY-MM-DDTHH:MM:SSZ");
    return rt_ok_status();
}

rt_status rt_wire_hash(const cJSON *obj, const struct rt_wire_path *at, const char *key,
                       bool required, char out[RT_STORE_HASH_HEX + 1])
{
    const cJSON *item = member(obj, key);
    out[0] = '\0';
    if (!item)
        return required ? rt_wire_bad(at, key, "missing") : rt_ok_status();
    const char *s = cJSON_IsString(item) ? item->valuestring : NULL;
    bool ok = s && strlen(s) == RT_STORE_HASH_HEX;
    for (size_t i = 0; ok && i < RT_STORE_HASH_HEX; i++)
        ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (!ok)
        return rt_wire_bad(at, key, "expected 32 lower-case hex digits");
    memcpy(out, s, RT_STORE_HASH_HEX + 1);
    return rt_ok_status();
}

/* ---- base64 ----------------------------------------------------------------- */

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *rt_wire_base64_encode(const void *data, size_t size)
{
    const uint8_t *in = data;
    char *text = malloc(4 * ((size + 2) / 3) + 1), *o = text;
    if (!text)
        return NULL;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < size ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < size ? in[i + 2] : 0);
        *o++ = alphabet[v >> 18 & 63];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < size ? alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < size ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return text;
}

static int base64_value(unsigned char c)
{
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

bool rt_wire_base64_decode(struct rt_arena *arena, const char *text, uint8_t **out,
                           size_t *size_out)
{
    size_t n = strlen(text);
    if (n == 0 || n % 4)
        return false;
    size_t pad = (text[n - 1] == '=') + (text[n - 2] == '=');
    uint8_t *bytes = rt_arena_alloc(arena, n / 4 * 3, 1);
    if (!bytes)
        return false;
    size_t size = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t group = 0;
        for (size_t j = 0; j < 4; j++) {
            bool padding = i + j >= n - pad;
            int v = padding ? 0 : base64_value((unsigned char)text[i + j]);
            if (v < 0)
                return false;
            group = group << 6 | (uint32_t)v;
        }
        bytes[size++] = (uint8_t)(group >> 16);
        bytes[size++] = (uint8_t)(group >> 8);
        bytes[size++] = (uint8_t)group;
    }
    *out = bytes;
    *size_out = size - pad;
    return true;
}

/* Width and height from the IHDR chunk, read before decoding so that a huge
 * declared image is refused without allocating for it. */
static bool png_header(const uint8_t *p, size_t n, uint32_t *w, uint32_t *h)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 24 || memcmp(p, signature, 8) || memcmp(p + 12, "IHDR", 4))
        return false;
    *w = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
    *h = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 | (uint32_t)p[22] << 8 | p[23];
    return true;
}

rt_status rt_wire_png(struct rt_arena *arena, const cJSON *obj, const struct rt_wire_path *at,
                      const char *key, const uint8_t **out, size_t *size_out, uint32_t *width,
                      uint32_t *height)
{
    const cJSON *item = member(obj, key);
    uint8_t *bytes = NULL;
    *out = NULL;
    *size_out = 0;
    if (!item)
        return rt_ok_status();
    if (!cJSON_IsString(item) || !rt_wire_base64_decode(arena, item->valuestring, &bytes, size_out))
        return rt_wire_bad(at, key, "expected base64 text");
    uint32_t w = 0, h = 0;
    if (!png_header(bytes, *size_out, &w, &h))
        return rt_wire_bad(at, key, "not a PNG image");
    if (w == 0 || h == 0 || w > RT_WIRE_MAX_IMAGE_SIDE || h > RT_WIRE_MAX_IMAGE_SIDE)
        return rt_wire_bad(at, key, "the image is larger than 16384 pixels a side");
    struct rt_image image = {0};
    rt_status s = rt_png_read_memory(bytes, *size_out, &image);
    rt_image_finish(&image);
    if (!rt_ok(&s)) {
        rt_status_free(&s); /* the field's own message replaces the decoder's */
        return rt_wire_bad(at, key, "the PNG does not decode");
    }
    *out = bytes;
    if (width)
        *width = w, *height = h;
    return rt_ok_status();
}

cJSON *rt_wire_number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *rt_wire_string_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }
