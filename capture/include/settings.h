/*
 * capture/include/settings.h — the capture layer's settings and their one wire
 * format: RETRACE_* environment variables.
 *
 * Owns: the layer's name and manifest file name, every variable's name and
 * accepted values, decoding them (the layer, at vkCreateInstance) and
 * encoding them (`retrace capture`, from its flags), so a user who enables
 * the layer by hand (VK_INSTANCE_LAYERS or vkconfig) gets identical
 * behaviour and the two sides cannot drift:
 *   RETRACE_OUTPUT             trace path (default: retrace_<program>_<pid>.rtrace)
 *   RETRACE_COMPRESSION        zstd (default) | none
 *   RETRACE_MEMORY_TRACKING    page-guard (default) | full
 *   RETRACE_FRAME_DELIMITER    present (default) | submit
 *   RETRACE_SCREENSHOTS        directory for capture-time screenshots
 *   RETRACE_SCREENSHOT_FRAMES  1-based frame list, e.g. 1,10,100-120
 *   RETRACE_OUTPUT_PARENT      a pid: only that process's children write
 *                              RETRACE_OUTPUT itself, every other process
 *                              NAME-PID.rtrace (`retrace capture` sets its own,
 *                              so -o is the program's, not a probe child's)
 * Must not touch: Vulkan.
 */
#ifndef RT_CAPTURE_SETTINGS_H
#define RT_CAPTURE_SETTINGS_H

#include <limits.h>

#include "framelist.h"
#include "memory_track.h"
#include "status.h"
#include "trace.h"

/* capture/meson.build writes the same names into the manifest from these
 * (it reads them out of this header). */
#define RT_CAPTURE_LAYER_NAME "VK_LAYER_RETRACE_capture"
#define RT_CAPTURE_LAYER_MANIFEST "VkLayer_RETRACE_capture.json"

enum rt_frame_delimiter { RT_FRAME_DELIMITER_PRESENT, RT_FRAME_DELIMITER_SUBMIT };

enum rt_capture_setting {
    RT_CAPTURE_SETTING_OUTPUT,
    RT_CAPTURE_SETTING_COMPRESSION,
    RT_CAPTURE_SETTING_MEMORY_TRACKING,
    RT_CAPTURE_SETTING_FRAME_DELIMITER,
    RT_CAPTURE_SETTING_SCREENSHOTS,
    RT_CAPTURE_SETTING_SCREENSHOT_FRAMES,
    RT_CAPTURE_SETTING_OUTPUT_PARENT,
    RT_CAPTURE_SETTING_COUNT
};

/** One variable: its name and, for a choice, its values (NULL-terminated;
 * NULL for a free value). */
struct rt_capture_setting_info {
    const char *var;
    const char *const *choices;
};

const struct rt_capture_setting_info *rt_capture_setting_info(enum rt_capture_setting which);

#define RT_CAPTURE_FRAMES_TEXT_MAX 1024

struct rt_capture_settings {
    char output[PATH_MAX];
    enum rt_trace_compression compression;
    enum rt_track_mode memory_tracking;
    enum rt_frame_delimiter frame_delimiter;
    char screenshot_dir[PATH_MAX]; /* "" = no screenshots */
    char screenshot_frames_text[RT_CAPTURE_FRAMES_TEXT_MAX]; /* as given, "" = default */
    struct rt_frame_list screenshot_frames;
    long output_parent; /* 0: any process may write output itself */
};

typedef const char *(*rt_getenv_fn)(const char *name);
typedef void (*rt_setenv_fn)(void *ctx, const char *name, const char *value);

/** Decodes every RETRACE_* setting through get (getenv in the layer). A bad
 * value is RT_ERR_USAGE naming the variable ("RETRACE_X: ..." or
 * "RETRACE_X=v ..."). A process that is not a child of RETRACE_OUTPUT_PARENT
 * gets NAME-PID.rtrace as its output. Creates the screenshot directory. */
rt_status rt_capture_settings_load(rt_getenv_fn get, const char *program_name,
                                   struct rt_capture_settings *out) RT_MUST_CHECK;
void rt_capture_settings_finish(struct rt_capture_settings *settings);

/** Encodes SETTINGS as the variables load reads back (every variable is
 * set, the defaults too, so none is inherited from elsewhere). */
void rt_capture_settings_encode(const struct rt_capture_settings *settings, rt_setenv_fn set, void *ctx);

/** PATH as another process of the program writes it: STEM-PID.rtrace. False
 * when it does not fit. */
bool rt_capture_output_for_pid(const char *path, long pid, char *out, size_t size);

/** "compression=zstd memory-tracking=page-guard ..." for the trace header. */
void rt_capture_settings_describe(const struct rt_capture_settings *settings, char *buf, size_t size);

/** A capture-time screenshot's file name for FRAME: "frame_000003.png",
 * written into the screenshot directory and, as DIR/NAME, into the trace's
 * screenshot annotations. */
void rt_capture_screenshot_name(uint64_t frame, char *buf, size_t size);

/** The frame of a screenshot annotation's TEXT (LENGTH bytes, a path
 * ending in rt_capture_screenshot_name's); false when it is not one. */
bool rt_capture_screenshot_frame(const char *text, size_t length, uint64_t *frame);

/* The summary's counts, handed from the layer to `retrace capture` in
 * TRACE.summary, so that the parent need not decompress and decode the whole
 * trace after the program exits (glxgears through zink, 1000 frames: 105 M
 * of the parent's 124 M instructions). Written only by the process that
 * wrote RETRACE_OUTPUT itself (RETRACE_OUTPUT_PARENT is its parent), after
 * a clean finish (renamed, fsynced); an emergency flush, a .part finished
 * later, another process's trace, a trim or screenshots are read as before.
 * Text, one "key value" a line after the first "retrace-capture-summary 1". */
#define RT_CAPTURE_SUMMARY_SUFFIX ".summary"

struct rt_capture_summary {
    uint64_t frames, calls, packets, blocks, raw_bytes, file_bytes; /* the writer's stats */
    char tracking[128]; /* the memory-tracking path, as the trace's note names it */
};

/** Writes TRACE.summary; false (nothing left behind) when it cannot. */
bool rt_capture_summary_write(const char *trace_path, const struct rt_capture_summary *summary);

/** Reads and removes TRACE.summary; false when there is none or it is not
 * whole (then the trace is to be read instead). */
bool rt_capture_summary_take(const char *trace_path, struct rt_capture_summary *out);

/** The frame delimiter a trace header's settings TEXT (describe's) names:
 * present when it names none (traces made before it was written). */
enum rt_frame_delimiter rt_capture_settings_described_delimiter(const char *text);

#endif
