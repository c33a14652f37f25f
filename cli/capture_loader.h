/*
 * cli/capture_loader.h — why a capture wrote no trace: the program is run
 * again, briefly, with the Vulkan loader's own debug output, and the
 * loader's lines about the capture layer are quoted.
 *
 * Why run it again: the loader the program uses may not be the one retrace
 * would load (Chromium and game runtimes bundle their own), and only that
 * loader can say why it dropped or failed to load the layer. Why not always
 * run with that output: it is noise in the program's stderr.
 * Must not touch: the trace files of the run (the probe writes into a
 * folder of its own, removed after).
 */
#ifndef RT_CLI_CAPTURE_LOADER_H
#define RT_CLI_CAPTURE_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

struct capture_loader_verdict {
    bool layer_loaded;   /* the probe run wrote a trace: the layer loads */
    char lines[1024];    /* the loader's lines naming the layer, "; "-joined, or "" */
};

/** Runs ARGV (environment as for the capture, RETRACE_OUTPUT elsewhere)
 * with VK_LOADER_DEBUG=error,warn for at most SECONDS, then kills it. */
rt_status capture_loader_probe(char **argv, int seconds, struct capture_loader_verdict *out);

/** The error for a capture that wrote no trace, from the verdict. */
rt_status capture_loader_no_trace(const char *program, const struct capture_loader_verdict *v);

#endif
