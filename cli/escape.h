/*
 * cli/escape.h — printing bytes that came from a file (trace strings,
 * command names, annotations) so that a terminal, a diff and a JSON parser
 * can all take them.
 *
 * Owns: the escaping rule of `retrace dump` (text and JSON): a backslash
 * becomes "\\", newline, carriage return and tab "\n", "\r", "\t", any other
 * control byte (below 0x20, and 0x7f) and any byte that is not part of valid
 * UTF-8 "\xNN". The result is valid UTF-8 with no control characters, and
 * the original bytes can be read back from it.
 * Must not touch: anything but libc and common/utf8.h (the UTF-8 rule).
 */
#ifndef RT_CLI_ESCAPE_H
#define RT_CLI_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

struct cli_text {
    char *data; /* NUL-terminated after cli_escape */
    size_t len, cap;
};

/** Replaces T's contents with TEXT[0..N) escaped. False when out of memory. */
bool cli_escape(struct cli_text *t, const char *text, size_t n);

void cli_text_finish(struct cli_text *t);

#endif
