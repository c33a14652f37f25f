/* replay/outputs.c — the names of the files replay writes. A screenshot is
 * DIR/frame_NNNNNN, a readback DIR/readback_NNNNNN (1-based); with --loop N
 * (N > 1) every pass writes its own, STEM_NNNNNN_loopK, so a later pass never
 * overwrites an earlier one. The extension is the writer's (readback.h). */
#include <inttypes.h>
#include <stdio.h>

#include "replay_internal.h"

void replay_output_stem(const struct replay *r, const char *dir, const char *stem, uint64_t number, char *out,
                        size_t size)
{
    if (r->opts->loop > 1)
        snprintf(out, size, "%s/%s_%06" PRIu64 "_loop%" PRIu32, dir, stem, number, r->pass);
    else
        snprintf(out, size, "%s/%s_%06" PRIu64, dir, stem, number);
}
