/* common/utf8.c — the UTF-8 rule of retrace (see utf8.h). */
#include "utf8.h"

size_t rt_utf8_sequence(const uint8_t *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    /* RFC 3629 §4: the second byte's range depends on the first. */
    uint8_t lo = 0x80, hi = 0xbf;
    size_t len;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        lo = s[0] == 0xe0 ? 0xa0 : 0x80; /* 0xe0 0x80..0x9f would be overlong */
        hi = s[0] == 0xed ? 0x9f : 0xbf; /* 0xed 0xa0..0xbf are surrogates */
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        lo = s[0] == 0xf0 ? 0x90 : 0x80; /* overlong */
        hi = s[0] == 0xf4 ? 0x8f : 0xbf; /* above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

void rt_utf8_scrub(char *text, size_t n)
{
    uint8_t *s = (uint8_t *)text;
    for (size_t i = 0; i < n;) {
        size_t len = rt_utf8_sequence(s + i, n - i);
        if (len) {
            i += len;
        } else {
            s[i++] = '?';
        }
    }
}
