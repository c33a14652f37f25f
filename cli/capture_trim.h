/*
 * cli/capture_trim.h — `retrace capture --trim-frames A-B`: the trimmed trace
 * made at the program's end. The whole run is captured to STEM.untrimmed.rtrace
 * beside -o; when the program has ended (exited, crashed, killed: retrace
 * finishes a .part it left) that trace is trimmed to -o (trim/trim.h) and
 * removed, whether the trim worked or not.
 *
 * Owns: the temporary trace's name and its removal, the range's parsing
 * (also `retrace trim --frames`), the clamp of a run that ended inside A..B.
 * Must not touch: the program (capture_child.c), the traces' summary
 * (capture_traces.c prints the trimmed trace as the run's).
 */
#ifndef RT_CLI_CAPTURE_TRIM_H
#define RT_CLI_CAPTURE_TRIM_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture_traces.h"
#include "cli.h"
#include "status.h"

struct capture_trim {
    bool on;
    uint64_t first, last;  /* the range, 1-based, first <= last */
    char final[PATH_MAX];  /* -o: the trimmed trace */
    char temp[PATH_MAX];   /* the whole run, removed at the end */
};

/** "A" or "A-B" with 1 <= A <= B, for OPTION; 0 or a usage error's exit code. */
int capture_trim_parse(const struct rt_command *self, const char *option, const char *text, uint64_t *first,
                       uint64_t *last);

/** OUTPUT (absolute) becomes the final trace; the temporary one's name is
 * made beside it, and any stale one (and its .part) removed. */
rt_status capture_trim_prepare(struct capture_trim *t, const char *output) RT_MUST_CHECK;

/** Trims the run's trace (TRACES->main, the temporary one) to the final
 * one and makes that TRACES->main. A run that ended inside A..B is trimmed
 * to its last frame (a warning says so); one that ended before A is
 * RT_ERR_BAD_INPUT. */
rt_status capture_trim_finish(struct capture_trim *t, struct capture_traces *traces) RT_MUST_CHECK;

/** Removes the temporary trace and its .part, whatever happened. */
void capture_trim_remove_temp(const struct capture_trim *t);

#endif
