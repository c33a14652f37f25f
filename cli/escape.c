/* cli/escape.c — escaping untrusted bytes for text and JSON output (see escape.h). */
#include "escape.h"

#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static bool reserve(struct cli_text *t, size_t extra)
{
    if (t->len + extra + 1 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *grown = realloc(t->data, cap);
    if (!grown)
        return false;
    t->data = grown;
    t->cap = cap;
    return true;
}

static void put_escape(struct cli_text *t, uint8_t c)
{
    const char *named = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                      : c == '\t' ? "\\t" : NULL;
    if (named)
        t->len += (size_t)snprintf(t->data + t->len, 5, "%s", named);
    else
        t->len += (size_t)snprintf(t->data + t->len, 5, "\\x%02x", c);
}

bool cli_escape(struct cli_text *t, const char *text, size_t n)
{
    const uint8_t *s = (const uint8_t *)text;
    t->len = 0;
    if (!reserve(t, 0))
        return false;
    for (size_t i = 0; i < n;) {
        if (!reserve(t, 4))
            return false;
        size_t seq = s[i] >= 0x80 ? rt_utf8_sequence(s + i, n - i) : 0;
        if (seq) {
            for (size_t k = 0; k < seq; k++)
                t->data[t->len++] = (char)s[i + k];
            i += seq;
        } else if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\' || s[i] >= 0x80) {
            put_escape(t, s[i++]);
        } else {
            t->data[t->len++] = (char)s[i++];
        }
    }
    t->data[t->len] = '\0';
    return true;
}

void cli_text_finish(struct cli_text *t)
{
    free(t->data);
    *t = (struct cli_text){0};
}
