/*
 * capture/settings.h — the capture layer's settings, from RETRACE_* variables.
 *
 * Owns: parsing and describing the settings. `retrace capture` sets the same
 * variables from its flags, so a user who enables the layer by hand (through
 * VK_INSTANCE_LAYERS or vkconfig) gets identical behaviour.
 *   RETRACE_OUTPUT             trace path (default: retrace_<program>_<pid>.rtrace)
 *   RETRACE_COMPRESSION        zstd (default) | none
 *   RETRACE_MEMORY_TRACKING    page-guard (default) | full
 *   RETRACE_FRAME_DELIMITER    present (default) | submit
 *   RETRACE_SCREENSHOTS        directory for capture-time screenshots
 *   RETRACE_SCREENSHOT_FRAMES  1-based frame list, e.g. 1,10,100-120
 * Must not touch: Vulkan.
 */
#ifndef RT_CAPTURE_SETTINGS_H
#define RT_CAPTURE_SETTINGS_H

#include <limits.h>

#include "framelist.h"
#include "memory_track.h"
#include "status.h"
#include "trace.h"

enum rt_frame_delimiter { RT_FRAME_DELIMITER_PRESENT, RT_FRAME_DELIMITER_SUBMIT };

struct rt_capture_settings {
    char output[PATH_MAX];
    enum rt_trace_compression compression;
    enum rt_track_mode memory_tracking;
    enum rt_frame_delimiter frame_delimiter;
    char screenshot_dir[PATH_MAX]; /* "" = no screenshots */
    struct rt_frame_list screenshot_frames;
};

typedef const char *(*rt_getenv_fn)(const char *name);

/** Reads every RETRACE_* setting through get (getenv in the layer). A bad
 * value is RT_ERR_USAGE naming the variable. */
rt_status rt_capture_settings_load(rt_getenv_fn get, const char *program_name,
                                   struct rt_capture_settings *out) RT_MUST_CHECK;
void rt_capture_settings_finish(struct rt_capture_settings *settings);

/** "compression=zstd memory-tracking=page-guard ..." for the trace header. */
void rt_capture_settings_describe(const struct rt_capture_settings *settings, char *buf, size_t size);

#endif
