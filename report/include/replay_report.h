/*
 * report/include/replay_report.h — the replay report (`retrace replay
 * --report FILE.json`, docs/FORMATS.md section 1) as data, and its one
 * encoder and one decoder. replay/ fills a struct rt_replay_report and
 * encodes it; runner/ decodes what a child replay wrote. Neither spells a
 * key of the format: they are all here (report.c), and a round-trip unit
 * test (tests/unit/test_report.c) keeps the two directions in step.
 *
 * Owns: the keys, their order and their JSON types. Must not touch: Vulkan,
 * the replay engine, files (callers read and write them). Uses common/ and
 * libcjson only, so that the runner may use it without linking replay/.
 */
#ifndef RT_REPLAY_REPORT_FORMAT_H
#define RT_REPLAY_REPORT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "status.h"

#define RT_REPLAY_REPORT_FORMAT "retrace-replay-report"
#define RT_REPLAY_REPORT_VERSION 1

struct rt_report_delay {
    const char *event; /* "create-pipeline", ... */
    uint64_t us, jitter_us;
};

struct rt_report_screenshot {
    uint64_t frame;
    const char *path;
};

struct rt_report_validation_id {
    const char *id;
    uint64_t errors, warnings;
    bool ignored;
};

struct rt_report_counter {
    const char *name; /* snake_case noun */
    uint64_t value;
};

/* One workaround that acted: its counters, and the names it lists (under names_key). */
struct rt_report_acted {
    const char *workaround;
    const struct rt_report_counter *counters;
    size_t counter_count;
    const char *names_key; /* NULL: lists no names */
    const char *const *names;
    size_t name_count;
};

struct rt_report_delay_applied {
    const char *event;
    uint64_t count;
    double total_ms;
};

/* Strings are never NULL where the format has a string (NULL encodes as "");
 * a NULL where the format allows null (device, pipeline cache path,
 * verify.first) encodes as null. */
struct rt_replay_report {
    const char *retrace_version;
    struct {
        const char *path, *application, *capture_device;
        uint64_t frames, calls;
    } trace;
    bool has_device; /* false: "device": null (no device was created) */
    struct {
        const char *name, *driver, *api_version, *device_key;
        uint32_t vendor_id, device_id, driver_version;
    } device;
    struct {
        const char *const *workarounds; /* after the sets' includes, catalogue order */
        size_t workaround_count;
        const char *const *sets;
        size_t set_count;
        const struct rt_report_delay *delays;
        size_t delay_count;
        uint64_t seed;
        const char *pipeline_cache; /* NULL: null */
        const char *validate;       /* "off", "on", "sync" */
    } configuration;
    struct {
        uint64_t replayed;
        const double *per_frame_cpu_ms;
        size_t count;
    } frames;
    const struct rt_report_screenshot *screenshots;
    size_t screenshot_count;
    uint64_t readbacks;
    struct {
        uint64_t errors, warnings, sync_hazards, ignored;
        const char *const *ignore;
        size_t ignore_count;
        const struct rt_report_validation_id *by_id;
        size_t by_id_count;
    } validation;
    struct {
        uint64_t points, divergences;
        const char *first; /* NULL: null */
        bool checked;
        const char *note;
    } verify;
    const struct rt_report_acted *acted;
    size_t acted_count;
    const struct rt_report_delay_applied *delays_applied;
    size_t delays_applied_count;
    bool has_gpu_stall;
    struct {
        uint64_t asked_us, iterations;
        double measured_us;
        const char *method;
    } gpu_stall;
    bool has_pipeline_cache;
    struct {
        uint64_t loaded_bytes, saved_bytes;
        const char *notice;
    } pipeline_cache;
    double wall_ms;
    struct {
        int code;
        const char *message;
    } exit;
};

/** The report as indented JSON (no trailing newline) in *JSON_OUT, to free(). */
rt_status rt_replay_report_encode(const struct rt_replay_report *report, char **json_out) RT_MUST_CHECK;

/**
 * Reads a report written by rt_replay_report_encode (any version 1 report).
 * Strings and arrays are allocated from ARENA. A key that is absent, or of
 * another JSON type, reads as zero, NULL or false; text that is not JSON, or
 * not a replay report, is RT_ERR_BAD_INPUT.
 */
rt_status rt_replay_report_decode(const char *json, struct rt_arena *arena,
                                  struct rt_replay_report *out) RT_MUST_CHECK;

#endif
