/*
 * common/include/utf8.h — telling valid UTF-8 (RFC 3629) from other bytes.
 *
 * Owns: the one UTF-8 rule of retrace (no overlong forms, no surrogates,
 * nothing above U+10FFFF), used where bytes from a file or a request are
 * printed: `retrace dump`'s escaping and the dashboard's JSON answers.
 * Must not touch: anything but libc.
 */
#ifndef RT_UTF8_H
#define RT_UTF8_H

#include <stddef.h>
#include <stdint.h>

/**
 * Length (1 to 4) of the valid UTF-8 sequence that starts at S, of which N
 * bytes (N >= 1) may be read; 0 when S[0] starts none: a stray continuation
 * byte, an overlong form, a surrogate, a code point over U+10FFFF or a
 * sequence cut short by N. ASCII, control bytes included, is 1.
 */
size_t rt_utf8_sequence(const uint8_t *s, size_t n);

/**
 * Replaces, in place, every byte of TEXT[0..N) that starts no valid sequence
 * with '?', so TEXT becomes valid UTF-8 of the same length. JSON must be
 * UTF-8 (RFC 8259 §8.1), and cJSON copies string bytes as they are.
 */
void rt_utf8_scrub(char *text, size_t n);

#endif
