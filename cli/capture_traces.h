/*
 * cli/capture_traces.h — the traces one `retrace capture` run wrote: the
 * program's own (-o) and those of its other processes (STEM-PID.rtrace),
 * finished where they were left unfinished, counted, and printed.
 *
 * Owns: which trace -o names after the run (the program's; when it never
 * created a Vulkan instance, the first of its other processes' that
 * rendered frames, renamed to -o) and the summary of every trace.
 * Must not touch: the program (capture_child.c runs it).
 */
#ifndef RT_CLI_CAPTURE_TRACES_H
#define RT_CLI_CAPTURE_TRACES_H

#include <limits.h>
#include <stdbool.h>
#include <time.h>

#include "trace.h"

#define CAPTURE_MAX_TRACES 16

struct capture_trace {
    char path[PATH_MAX];
    long pid;                        /* the writer's, from STEM-PID; 0 for -o */
    bool read;                       /* progress is known */
    struct rt_trace_progress progress;
    long long bytes;
    uint64_t *shots;                 /* frames of its capture-time screenshots (malloc'd) */
    char tracking[128];              /* the memory-tracking path its note names, or "" */
    size_t shot_count;
    char warning[512];               /* "" or why the trace is good only up to a point */
};

struct capture_traces {
    struct capture_trace main;       /* path is -o; exists tells whether it was written */
    bool main_exists;
    long promoted_pid;               /* not 0: main came from this process's trace */
    struct capture_trace others[CAPTURE_MAX_TRACES];
    int count;
};

/** Finishes the .part files left behind, finds the other processes' traces
 * written since STARTED, reads them all, and makes -o the program's trace. */
void capture_traces_collect(const char *output, time_t started, struct capture_traces *out);

/** Makes PATH the program's trace (a trim of it, capture_trim.h) and reads it. */
void capture_traces_reread_main(struct capture_traces *traces, const char *path);

void capture_traces_finish(struct capture_traces *traces);

/** The summary: text on stdout, or with JSON the last line's object
 * (PROGRAM's wait status in it). */
void capture_traces_print(const struct capture_traces *traces, int status, bool json);

#endif
