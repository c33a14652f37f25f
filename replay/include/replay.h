/*
 * replay/include/replay.h — re-executes a .rtrace on any Vulkan device, headless by
 * default, and saves chosen frames as PNG.
 *
 * Owns: the replay engine (engine.c: the packet loop and the generic call
 * path; decode.c: decoding a call, shared with `info --check`), the
 * captured-to-live handle map, instances, devices and physical-device choice
 * (instance.c: any number alive at once), per-object records that follow
 * object lifetimes (resources.c), memory (memory.c: type translation, memory
 * updates, rebinding resources when the replay device's requirements differ),
 * the virtual swapchain and presents (swapchain.c), read-backs (readbacks.c)
 * and output file names (outputs.c), and the waits the capture observed
 * (waits.c); replay configurations (config.h: workarounds, delays, pipeline
 * cache, sync validation, applied through replay_config.h) and the report
 * (report.h). Loads Vulkan through volk: no link-time libvulkan.
 * Must not touch: the capture layer, compare, the store, the server.
 */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "framelist.h"
#include "status.h"
#include "trace.h"

struct rt_replay_trim_hooks;

enum rt_replay_memory_mode {
    RT_REPLAY_MEMORY_AUTO,   /* direct on the capture's device, rebind elsewhere */
    RT_REPLAY_MEMORY_DIRECT, /* one allocation per captured allocation */
    RT_REPLAY_MEMORY_REBIND, /* one allocation per buffer and image, for the replay device */
};

/* --dump-draws (docs/FORMATS.md 7.2): what each draw of one frame wrote. */
struct rt_replay_draw_options {
    uint64_t frame;         /* 1-based; 0 = no dump */
    const char *dir;        /* where the images and draws.json go (made if missing) */
    bool buffers;           /* --dump-buffers: also the buffers copies, fills and updates wrote */
    const uint32_t *only;   /* --dump-only: the draws to save (ascending); NULL = all */
    uint32_t only_count;
};

struct rt_replay_options {
    const char *trace_path;
    const char *device;            /* index or name substring; NULL = the capture's vendor, else first */
    const char *screenshot_dir;    /* NULL = no screenshots */
    const char *readback_dir;      /* NULL = do not save image-to-buffer copies */
    struct rt_frame_list frames;   /* which frames to save */
    uint64_t end_frame;            /* 0 = to the end */
    uint32_t loop;                 /* replay the trace this many times (0 = 1) */
    bool validate;                 /* enable VK_LAYER_KHRONOS_validation and count its messages */
    bool window;                   /* also show the frames in an X11 window */
    bool stats;                    /* per-command counts and times */
    bool progress;                 /* "frame N of M" on stderr */
    uint64_t total_frames;         /* M in the progress line */
    FILE *stats_out;               /* where --stats goes; NULL = stdout */
    bool verbose;
    enum rt_replay_memory_mode memory_mode;
    bool verify;                   /* check the trace's verification points (verify.c) */
    const char *const *validate_ignore; /* message ids (VUIDs) --validate does not count (validation.c) */
    uint32_t validate_ignore_count;
    const struct rt_replay_config *config; /* workarounds, delays, pipeline cache; NULL = none */
    const struct rt_replay_trim_hooks *trim; /* retrace trim (replay_trim.h); NULL = none */
    const struct rt_replay_draw_options *draws; /* --dump-draws; NULL = none */
};

/* --validate: one message id's count (validation.c). */
#define RT_REPLAY_VALIDATION_IDS 64
struct rt_replay_validation_id {
    char id[112];
    uint64_t errors, warnings;
    bool ignored; /* named by --validate-ignore: in neither total, not printed */
};

struct rt_replay_result {
    uint64_t frames, calls, skipped_calls, memory_updates, screenshots;
    uint64_t last_frame; /* frames of one pass (--loop replays several) */
    uint64_t readbacks;  /* images saved by --readbacks */
    uint64_t conversion_warnings; /* images that could not be saved (each one warned) */
    uint64_t unsupported; /* packets the capture could not record */
    /* draws (docs/FORMATS.md 7.1) of the --dump-draws or --skip-draws frame, those left out, images saved */
    uint64_t frame_draws, draws_skipped, draw_images;
    uint64_t validation_errors, validation_warnings, validation_infos;
    uint64_t validation_ignored; /* errors and warnings of --validate-ignore ids */
    uint64_t validation_replay;  /* messages about replay's own calls: never the program's, never a failure */
    struct rt_replay_validation_id validation_ids[RT_REPLAY_VALIDATION_IDS]; /* the first ids seen */
    uint32_t validation_id_count;
    uint64_t validation_other_ids; /* messages of ids past the table */
    double seconds;
    bool good_prefix_only; /* the trace was truncated or corrupt; what was good replayed */
    /* --verify: points and ranges checked, query reads compared, divergences
     * (ranges the replay could not read count too), the first one named. */
    uint64_t verify_points, verify_ranges, verify_bytes, verify_queries, verify_divergences, verify_unreadable;
    uint64_t verify_unchecked_bytes; /* rebind mode: bytes of destroyed or never-bound buffers */
    bool verify_same_kind; /* the replay device is the capture's kind: a divergence is a failure */
    char verify_first[512];
    uint64_t external_memory; /* imported memory whose content the trace does not hold */
    /* Rebind mode (--memory rebind, or auto on a device whose memory layout
     * differs): buffers and images bound at their captured offsets, and those
     * moved into memory of their own. */
    bool memory_rebound;
    uint64_t rebind_placed, rebind_moved;
    char device_name[256];
    struct rt_replay_outcome outcome; /* what the configuration did; rt_replay_outcome_finish frees it */
};

/**
 * Replays the trace. RT_ERR_BAD_INPUT for an unreadable or corrupt trace (the
 * good prefix is replayed first and counted in result), RT_ERR_CANNOT_REPLAY
 * when the device lacks something the trace needs (named in the message).
 */
rt_status rt_replay_run(const struct rt_replay_options *options, struct rt_replay_result *result) RT_MUST_CHECK;

/* --validate: up to MAX ids with errors or warnings, most errors first,
 * ignored ones left out; returns how many are in OUT. */
uint32_t rt_replay_validation_top(const struct rt_replay_result *result, const struct rt_replay_validation_id **out,
                                  uint32_t max);

/* --verify: whether anything was checked (a point or a query read), and why
 * not when nothing was: a replay never fails for it, it says so (verify.c). */
bool rt_replay_verify_checked(const struct rt_replay_result *result);
extern const char rt_replay_verify_nothing_why[];

/**
 * Checks that replay can decode every call of a trace, without a device: the
 * same decoding replay does first, so a trace replay would refuse at call N
 * (a command this build does not know, parameters that do not decode) is
 * refused at call N. For `retrace info --check`. HEADER must outlive it.
 */
struct rt_replay_checker;
rt_status rt_replay_checker_create(const struct rt_trace_header *header, struct rt_replay_checker **out) RT_MUST_CHECK;
/** RT_ERR_CANNOT_REPLAY or RT_ERR_BAD_INPUT naming the call; other packets pass. */
rt_status rt_replay_check_packet(struct rt_replay_checker *checker, const struct rt_trace_packet *p) RT_MUST_CHECK;
void rt_replay_checker_destroy(struct rt_replay_checker *checker);

#endif
