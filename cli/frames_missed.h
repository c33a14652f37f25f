/*
 * cli/frames_missed.h — every frame a list asked for (capture's
 * --screenshot-frames, replay's --frames) that was not saved, named with
 * why, so a job never gets a silent "3 screenshots" for 5 asked.
 *
 * Owns: the wording and grouping ("frames 7-9 not saved: ..."); the
 * callers say which frames were saved and why the others were not, and
 * which were saved although the trace ends before them.
 * Must not touch: the files (callers count what was written).
 */
#ifndef RT_CLI_FRAMES_MISSED_H
#define RT_CLI_FRAMES_MISSED_H

#include <stddef.h>
#include <stdint.h>

#include "framelist.h"

/** Prints one warning per run of consecutive frames LIST names that SAVED
 * (COUNT frames, any order) lacks: past LAST (the trace's last frame) with
 * PAST_WHY, else with IN_WHY. Open-ended ranges ("100-") end at LAST.
 * Returns how many frames were named. */
uint64_t cli_frames_missed(const char *flag, const struct rt_frame_list *list, uint64_t last,
                           const uint64_t *saved, size_t count, const char *in_why, const char *past_why);

/** Prints one warning per run of FRAMES (COUNT, any order, past LAST, the
 * trace's last frame) whose images are in DIR although the trace ends
 * before them: a program killed after saving them, before the block with
 * their calls was written. */
void cli_frames_saved_past(const char *flag, const char *dir, const uint64_t *frames, size_t count, uint64_t last);

#endif
