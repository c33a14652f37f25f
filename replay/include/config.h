/*
 * replay/include/config.h — a replay configuration: the workarounds (after the named
 * sets' includes are resolved), injected delays, the jitter seed, the
 * pipeline cache file and the validation mode. The same trace replayed under
 * two configurations tells a timing bug from a driver bug.
 *
 * Owns: the workaround catalogue and the set files (workarounds.c), delay
 * specifications and the seeded jitter sequence (delays.c), and the one-line
 * description of a configuration printed at the start of a replay and stored
 * in its report. The engine applies them (replay_config.h).
 * Must not touch: the CLI's exit codes (errors are rt_status: RT_ERR_USAGE for
 * a bad name or specification), the store.
 */
#ifndef RT_REPLAY_CONFIG_H
#define RT_REPLAY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

/* The catalogue (DESIGN.md "Workaround sets"); append only: bits are stored
 * nowhere, but names are, and the order is the listing's. */
enum rt_workaround {
    RT_WA_ROBUST_BUFFER_ACCESS,
    RT_WA_READBACK_BARRIER,
    RT_WA_SERIALIZE_SUBMITS,
    RT_WA_ZERO_INIT,
    RT_WA_NO_PIPELINE_CACHE,
    RT_WA_STRIP_UNSUPPORTED,
    RT_WA_SERIALIZE_FRAMES,
    RT_WA_NO_ROBUSTNESS,
    RT_WA_NO_ANISOTROPY,
    RT_WA_TEST_FLIP_BLEND, /* tests only (RETRACE_TEST_FLIP_BLEND) */
    RT_WA_TEST_DIRTY_MEMORY,    /* tests only (RETRACE_TEST_DRIVER): models of a driver's bug */
    RT_WA_TEST_UNCHECKED_READS, /* after robust-buffer-access: sees the features it enables */
    RT_WA_TEST_LATE_SUBMITS,    /* after readback-barrier: sees the barriers it records */
    RT_WA_COUNT
};

struct rt_workaround_info {
    const char *name;    /* "robust-buffer-access" */
    const char *summary; /* one line for `retrace workarounds list` */
    const char *changes; /* what replay changes, and where, for `show` */
};

const struct rt_workaround_info *rt_workaround_info(enum rt_workaround w);
/** The workaround called NAME, or false. */
bool rt_workaround_find(const char *name, enum rt_workaround *out);

/* Which commands belong to which event is gen/command_flags.py's to decide
 * (delay_event()); the values are the command table's enum rt_vk_cmd_event. */
enum rt_delay_event {
    RT_DELAY_CREATE_PIPELINE, /* vkCreate*Pipelines (graphics, compute, ray tracing KHR and NV) */
    RT_DELAY_CREATE_SHADER,   /* vkCreateShaderModule */
    RT_DELAY_SUBMIT,          /* vkQueueSubmit, vkQueueSubmit2, vkQueueBindSparse */
    RT_DELAY_PRESENT,         /* vkQueuePresentKHR */
    RT_DELAY_ACQUIRE,         /* vkAcquireNextImage*KHR */
    RT_DELAY_MAP,             /* vkMapMemory */
    RT_DELAY_WAIT,            /* fence, semaphore, queue and device waits */
    RT_DELAY_GPU,             /* a GPU-side stall at the start of every submission */
    RT_DELAY_EVENT_COUNT
};

const char *rt_delay_event_name(enum rt_delay_event e);

struct rt_replay_delay {
    enum rt_delay_event event;
    uint64_t us;        /* the asked duration */
    uint64_t jitter_us; /* each delay is uniform in [us - jitter, us + jitter], at least 0 */
};

enum rt_replay_validate { RT_VALIDATE_OFF, RT_VALIDATE_ON, RT_VALIDATE_SYNC };

#define RT_REPLAY_MAX_SETS 16
#define RT_REPLAY_MAX_NAME 64

/* --skip-draws F:N[-M]: draws N..M (1-based, docs/FORMATS.md 7.1) of frame F are
 * not recorded. frame 0: none. */
struct rt_skip_draws {
    uint64_t frame;
    uint32_t first, last;
};

struct rt_replay_config {
    bool workarounds[RT_WA_COUNT];       /* after includes */
    char sets[RT_REPLAY_MAX_SETS][RT_REPLAY_MAX_NAME]; /* the set names asked for, in order */
    uint32_t set_count;
    struct rt_replay_delay delays[RT_DELAY_EVENT_COUNT]; /* at most one per event */
    uint32_t delay_count;
    uint64_t seed;
    const char *pipeline_cache; /* NULL: none */
    enum rt_replay_validate validate;
    struct rt_skip_draws skip_draws;
};

/* What a configuration did in one replay: filled by the engine, written into
 * the report (report.c; docs/FORMATS.md section 1). */
#define RT_ACT_COUNTERS 3
#define RT_REPLAY_MAX_FRAME_TIMES (1u << 20)

struct rt_replay_outcome {
    /* per workaround: up to three counters, named in report.c, and the
     * features or extensions it enabled or removed, comma-separated */
    uint64_t acted[RT_WA_COUNT][RT_ACT_COUNTERS];
    char acted_names[RT_WA_COUNT][512];
    struct {
        uint64_t count, total_us;
    } delays[RT_DELAY_EVENT_COUNT];
    uint64_t sync_hazards;
    struct {
        uint64_t asked_us, iterations, measured_ns; /* measured: mean over the check runs */
        const char *method;                          /* "shader-clock", "calibrated-loop" or NULL */
    } gpu_stall;
    char pipeline_cache_notice[512]; /* why a --pipeline-cache file was not used, or "" */
    uint64_t pipeline_cache_loaded, pipeline_cache_saved; /* bytes of driver data */
    double *frame_ms;                /* CPU time per replayed frame */
    size_t frame_count, frame_capacity;
    uint64_t *screenshot_frames;     /* frames saved as screenshots, in order */
    char **screenshot_paths;         /* and where */
    size_t screenshot_count, screenshot_capacity;
    struct {
        uint32_t vendor_id, device_id, driver_version, api_version;
        char driver_name[256], driver_info[256];
    } device;
    char application[256], capture_device[256];
};

/** Frees the outcome's arrays. */
void rt_replay_outcome_finish(struct rt_replay_outcome *o);

/** Where the shipped sets are: next to the build, else installed. */
const char *rt_workarounds_builtin_dir(void);

/**
 * Adds the workarounds of NAMES ("robust-buffer-access,race-hunt": workaround
 * or set names, comma-separated) to CONFIG. Sets are read from USER_DIR (may
 * be NULL) first, then the shipped sets. An unknown name is RT_ERR_USAGE with
 * every known name in the message; a broken set file is RT_ERR_BAD_INPUT.
 */
rt_status rt_replay_config_add_workarounds(struct rt_replay_config *config, const char *names,
                                           const char *user_dir) RT_MUST_CHECK;

/** Parses "EVENT=DURATION[~JITTER]" (us, ms or s) into CONFIG; RT_ERR_USAGE when bad. */
rt_status rt_replay_config_add_delay(struct rt_replay_config *config, const char *spec) RT_MUST_CHECK;

/** Parses "F:N" or "F:N-M" (F, N >= 1, M >= N) into CONFIG's skip_draws; RT_ERR_USAGE when bad. */
rt_status rt_replay_config_set_skip_draws(struct rt_replay_config *config, const char *spec) RT_MUST_CHECK;

/** "25ms", "1.5ms", "500us", "2s" -> microseconds; false when bad or over 60 s. */
bool rt_parse_duration_us(const char *text, uint64_t *us_out);

/** A seed from the clock and the process id, for replays given no --seed. */
uint64_t rt_replay_random_seed(void);

/** Writes the configuration on one line ("workarounds a, b (sets s); delays ...; seed N; ..."). */
void rt_replay_config_describe(const struct rt_replay_config *config, char *buf, size_t size);

/* --- workaround sets ------------------------------------------------------ */

/** Calls FN for every set file in DIR (its name without ".set" and first comment line). */
void rt_workaround_sets_each(const char *dir, void (*fn)(void *user, const char *name, const char *summary),
                             void *user);

/**
 * Describes workaround or set NAME for `retrace workarounds show`: what it
 * does and what it changes; for a set, its file, includes and resolved
 * workarounds. RT_ERR_USAGE naming the known ones when NAME is neither.
 */
rt_status rt_workaround_show(FILE *out, const char *name, const char *user_dir) RT_MUST_CHECK;

/* --- jitter --------------------------------------------------------------- */

/** A small seeded generator (splitmix64): the same seed gives the same sequence. */
struct rt_jitter {
    uint64_t state;
};

void rt_jitter_init(struct rt_jitter *j, uint64_t seed);
/** One delay of D in microseconds, jittered. */
uint64_t rt_jitter_next(struct rt_jitter *j, const struct rt_replay_delay *d);

#endif
