/*
 * store/store_json.c — JSON text written into one growing buffer (see
 * private/store_json.h): separators, string escapes with the UTF-8 rule of
 * common/utf8.h, and numbers printed exactly without printf on the common
 * path.
 */
#include "store_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void rt_jw_init(struct rt_jw *w)
{
    memset(w, 0, sizeof *w);
}

void rt_jw_free(struct rt_jw *w)
{
    free(w->buf);
    rt_jw_init(w);
}

char *rt_jw_take(struct rt_jw *w, size_t *len_out)
{
    char *text = NULL;
    if (!w->failed && w->depth == 0 && w->buf) {
        text = w->buf;
        text[w->len] = '\0'; /* reserve() always keeps a byte spare */
        *len_out = w->len;
        w->buf = NULL;
    }
    rt_jw_free(w);
    return text;
}

static bool grow(struct rt_jw *w, size_t n);

/* Room for N more bytes and a NUL; false (and failed) when out of memory. */
static inline bool reserve(struct rt_jw *w, size_t n)
{
    return w->len + n + 1 <= w->cap ? !w->failed : grow(w, n);
}

static bool grow(struct rt_jw *w, size_t n)
{
    if (w->failed)
        return false;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n + 1)
        cap *= 2;
    char *buf = realloc(w->buf, cap);
    if (!buf) {
        w->failed = true;
        return false;
    }
    w->buf = buf;
    w->cap = cap;
    return true;
}

static void put(struct rt_jw *w, const char *s, size_t n)
{
    if (reserve(w, n)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

static void put_char(struct rt_jw *w, char c)
{
    if (reserve(w, 1))
        w->buf[w->len++] = c;
}

/* The separator a value needs where it is written. */
static void before_value(struct rt_jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        uint64_t bit = UINT64_C(1) << w->depth;
        if (!(w->empty & bit))
            put_char(w, ',');
        w->empty &= ~bit;
    }
}

static void open_container(struct rt_jw *w, char c)
{
    before_value(w);
    put_char(w, c);
    if (w->depth >= 63) {
        w->failed = true; /* deeper than any answer of ours */
        return;
    }
    w->depth++;
    w->empty |= UINT64_C(1) << w->depth;
}

static void close_container(struct rt_jw *w, char c)
{
    put_char(w, c);
    if (w->depth > 0)
        w->depth--;
    else
        w->failed = true;
}

void rt_jw_object(struct rt_jw *w) { open_container(w, '{'); }
void rt_jw_end_object(struct rt_jw *w) { close_container(w, '}'); }
void rt_jw_array(struct rt_jw *w) { open_container(w, '['); }
void rt_jw_end_array(struct rt_jw *w) { close_container(w, ']'); }

/* Bytes that need an escape in a JSON string, as cJSON writes them. */
static bool plain_byte(uint8_t c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void put_escape(struct rt_jw *w, uint8_t c)
{
    static const char hex[] = "0123456789abcdef";
    char esc[6] = {'\\', 0};
    size_t n = 2;
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
        memcpy(esc + 1, "u00", 3);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        n = 6;
    }
    put(w, esc, n);
}

/* S[0..N) inside quotes: escapes, and '?' for bytes that are no UTF-8. */
static void put_string_body(struct rt_jw *w, const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && plain_byte(s[run]))
            run++;
        put(w, (const char *)s + i, run - i);
        i = run;
        if (i >= n)
            break;
        if (s[i] < 0x80) {
            put_escape(w, s[i++]);
            continue;
        }
        size_t len = rt_utf8_sequence(s + i, n - i);
        if (len) {
            put(w, (const char *)s + i, len);
            i += len;
        } else {
            put_char(w, '?');
            i++;
        }
    }
}

void rt_jw_string_n(struct rt_jw *w, const char *s, size_t n)
{
    before_value(w);
    put_char(w, '"');
    put_string_body(w, (const uint8_t *)s, n);
    put_char(w, '"');
}

void rt_jw_string(struct rt_jw *w, const char *s)
{
    if (!s)
        rt_jw_null(w);
    else
        rt_jw_string_n(w, s, strlen(s));
}

void rt_jw_key(struct rt_jw *w, const char *key)
{
    rt_jw_key_n(w, key, strlen(key));
}

void rt_jw_key_n(struct rt_jw *w, const char *key, size_t n)
{
    before_value(w);
    if (!reserve(w, n + 3))
        return;
    char *p = w->buf + w->len;
    *p++ = '"';
    memcpy(p, key, n); /* keys are ours: plain ASCII names */
    p += n;
    *p++ = '"';
    *p++ = ':';
    w->len = (size_t)(p - w->buf);
    w->after_key = true;
}

/* Decimal digits of V at the end of BUF (which ends at END); their start. */
static char *u64_digits(uint64_t v, char *end)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void rt_jw_int(struct rt_jw *w, int64_t value)
{
    char buf[24];
    char *end = buf + sizeof buf;
    uint64_t mag = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    char *p = u64_digits(mag, end);
    if (value < 0)
        *--p = '-';
    before_value(w);
    put(w, p, (size_t)(end - p));
}

void rt_jw_double(struct rt_jw *w, double value)
{
    if (!isfinite(value)) {
        rt_jw_null(w);
        return;
    }
    char buf[32];
    size_t n = rt_json_format_double(value, buf);
    before_value(w);
    put(w, buf, n);
}

void rt_jw_bool(struct rt_jw *w, bool value)
{
    before_value(w);
    put(w, value ? "true" : "false", value ? 4 : 5);
}

void rt_jw_null(struct rt_jw *w)
{
    before_value(w);
    put(w, "null", 4);
}

void rt_jw_raw_utf8(struct rt_jw *w, const char *json, size_t n)
{
    before_value(w);
    put(w, json, n);
}

void rt_jw_raw(struct rt_jw *w, const char *json, size_t n)
{
    before_value(w);
    size_t start = w->len;
    put(w, json, n);
    if (!w->failed)
        rt_utf8_scrub(w->buf + start, n);
}

/* ---- numbers ------------------------------------------------------------- */

#define TWO_53 9007199254740992.0

static const double pow10_double[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^K exactly, K <= 38. */
static unsigned __int128 pow10_u128(int k)
{
    unsigned __int128 p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* D / 10^DECIMALS as text at OUT (D > 0): the integer digits, then the
 * fraction without trailing zeros; its length. */
static size_t fixed_text(uint64_t d, int decimals, char *out)
{
    char digits[24];
    char *end = digits + sizeof digits;
    char *p = u64_digits(d, end);
    size_t nd = (size_t)(end - p), n = 0;
    while (decimals > 0 && end[-1] == '0') { /* trailing zeros of the fraction */
        end--, nd--, decimals--;
    }
    size_t whole = nd > (size_t)decimals ? nd - (size_t)decimals : 0;
    if (whole) {
        memcpy(out, p, whole);
        n = whole;
    } else
        out[n++] = '0';
    if (decimals > 0) {
        out[n++] = '.';
        for (size_t z = nd; z < (size_t)decimals; z++)
            out[n++] = '0';
        memcpy(out + n, p + whole, nd - whole);
        n += nd - whole;
    }
    out[n] = '\0';
    return n;
}

/* The fewest decimal places Q (1..22) with D = round(A * 10^Q) < 2^53 and
 * D / 10^Q == A: both are exact doubles and IEEE division is correctly
 * rounded, so that D / 10^Q is the double strtod makes of the text. */
static bool short_fixed(double a, char *out, size_t *len_out)
{
    for (int q = 1; q <= 22; q++) {
        double x = a * pow10_double[q];
        if (x >= TWO_53)
            return false;
        uint64_t d = (uint64_t)(x + 0.5);
        if (d && (double)d / pow10_double[q] == a) {
            *len_out = fixed_text(d, q, out);
            return true;
        }
    }
    return false;
}

/* round(N / 2^S) (half to even), S >= 1; *err_out = |result * 2^S - N|. */
static unsigned __int128 shift_round(unsigned __int128 n, int s, unsigned __int128 *err_out)
{
    unsigned __int128 q = n >> s, r = n - (q << s), half = (unsigned __int128)1 << (s - 1);
    if (r > half || (r == half && (q & 1))) {
        *err_out = ((unsigned __int128)1 << s) - r;
        return q + 1;
    }
    *err_out = r;
    return q;
}

/* A = M * 2^-S (1e-5 <= A < 2^53, not an integer) in 17 significant digits,
 * exactly rounded (so it reads back as A), or 16 when those read back as A
 * too: the 16-digit D differs from A * 10^K by ERR / 2^S, which must be
 * under half the gap to A's neighbours (a quarter below a power of two). */
static size_t exact_digits(uint64_t m, int s, double a, char *out)
{
    int e10 = (int)floor(log10(a));
    unsigned __int128 err = 0, d = 0;
    int k = 0;
    for (int tries = 0; tries < 3; tries++) {
        k = 16 - e10;
        d = shift_round((unsigned __int128)m * pow10_u128(k), s, &err);
        if (d >= pow10_u128(17))
            e10++;
        else if (d < pow10_u128(16))
            e10--;
        else
            break;
    }
    unsigned __int128 err16 = 0;
    unsigned __int128 d16 = shift_round((unsigned __int128)m * pow10_u128(k - 1), s, &err16);
    unsigned __int128 gap = pow10_u128(k - 1); /* 2^S * 10^(K-1) * (A's gap = 2^-S) */
    bool power_of_two = m == (UINT64_C(1) << 52);
    if (d16 < pow10_u128(16) && err16 * (power_of_two ? 4 : 2) < gap)
        return fixed_text((uint64_t)d16, k - 1, out);
    return fixed_text((uint64_t)d, k, out);
}

size_t rt_json_format_double(double value, char *out)
{
    bool neg = value < 0;
    double a = neg ? -value : value;
    char *p = out + neg;
    size_t n;
    if (a == 0) {
        out[0] = '0', out[1] = '\0';
        return 1;
    }
    if (a < TWO_53 && a == floor(a)) {
        char digits[24];
        char *end = digits + sizeof digits, *q = u64_digits((uint64_t)a, end);
        n = (size_t)(end - q);
        memcpy(p, q, n);
        p[n] = '\0';
    } else if (a >= 1e-5 && a < TWO_53 && short_fixed(a, p, &n)) {
        /* written */
    } else if (a >= 1e-5 && a < TWO_53) {
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        int exponent = (int)((bits >> 52) & 0x7ff);
        uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
        n = exact_digits(m, 1075 - exponent, a, p);
    } else {
        return (size_t)snprintf(out, 32, "%.17g", value);
    }
    if (neg)
        out[0] = '-';
    return n + neg;
}
