/*
 * cli/cmd_info.c — `retrace info TRACE [--check] [--json]`: what a trace
 * holds (header, capture device, frames, calls per command, sizes), read
 * streaming; --check adds an explicit verdict and, on a bad trace, how far it
 * is good, and decodes every call as replay would (the first call replay
 * would refuse is named). Bad traces exit 3 either way.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "replay.h"
#include "settings.h"
#include "trace.h"
#include "trace_snapshot.h"

#define INFO_MAX_EXTERNAL 16
#define INFO_MAX_SHOTS 64
#define INFO_MAX_UNRECORDED 32

struct info {
    const char *path;
    bool check, json;
    const struct rt_trace_header *header;
    const struct rt_trace_device_info *device; /* header's, or the last device packet's */
    struct rt_trace_device_info late_device;
    uint64_t *per_command; /* calls per command id */
    uint64_t frames, calls, unsupported, memory_updates, memory_bytes, annotations;
    uint64_t verify_points, verify_ranges, verify_bytes; /* what replay --verify checks */
    uint64_t external_count;                              /* memory the capture could not read */
    uint64_t shots[INFO_MAX_SHOTS];                       /* frames of capture-time screenshots saved */
    uint64_t shot_count;
    char *external[INFO_MAX_EXTERNAL];
    struct rt_trace_progress progress;
    rt_status status; /* how reading ended */
    struct rt_replay_checker *checker; /* --check: decodes every call */
    rt_status refused;                 /* the first call replay would refuse */
    uint64_t refused_seq;
    bool trimmed; /* a state snapshot begins the trace (retrace trim) */
    struct rt_trace_snapshot_begin trim;
    char trim_source[256];
    struct rt_trace_snapshot_end trim_end; /* zero until its end packet */
    char imported[512], import_map[512]; /* retrace import's notes (docs/FORMATS.md §20) */
    char *unrecorded[INFO_MAX_UNRECORDED]; /* commands the capture passed through (capture/unrecorded.c) */
    uint64_t unrecorded_count;
};

struct command_count {
    const char *name;
    uint64_t count;
};

enum { OPT_CHECK = 1, OPT_JSON };
static const struct cli_option options[] = {
    {"check", 0, CLI_FLAG, OPT_CHECK, NULL,
     "also decode every call as replay does and print a verdict: on a bad trace how far it is good, or the "
     "first call replay would refuse"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "machine-readable output"},
    {0}};

void cmd_info_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace info TRACE [--check] [--json]\n"
            "  Prints the trace's header (application, capture device, driver), its frames,\n"
            "  calls per command and compressed/raw sizes. Reads every block.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "good trace"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "unreadable or corrupt trace or a call that does not decode"},
        {RT_ERR_CANNOT_REPLAY, "a command this build of retrace does not know"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

static void count_verify(struct info *in, const struct rt_trace_packet *p)
{
    struct rt_trace_verify_cursor c;
    struct rt_trace_verify_range range;
    in->verify_points++;
    rt_trace_verify_begin(p, &c);
    while (rt_trace_verify_next(&c, &range)) {
        in->verify_ranges++;
        in->verify_bytes += range.size;
    }
}

static void count_external(struct info *in, const struct rt_trace_packet *p)
{
    if (in->external_count < INFO_MAX_EXTERNAL)
        in->external[in->external_count] = strndup(p->u.annotation.text, p->u.annotation.length);
    in->external_count++;
}

static void count_shot(struct info *in, const struct rt_trace_packet *p)
{
    uint64_t frame;
    if (!rt_capture_screenshot_frame(p->u.annotation.text, p->u.annotation.length, &frame))
        return;
    if (in->shot_count < INFO_MAX_SHOTS)
        in->shots[in->shot_count] = frame;
    in->shot_count++;
}

/* The header's settings as the trace turned out: "screenshots=yes" is
 * written when capture starts, so it stays only when a screenshot was
 * saved (the screenshots line names the frames). */
static const char *settings_text(const struct info *in, char *buf, size_t size)
{
    const char *yes = in->header->settings ? strstr(in->header->settings, "screenshots=yes") : NULL;
    if (!yes || in->shot_count)
        return in->header->settings;
    snprintf(buf, size, "%.*sscreenshots=no%s", (int)(yes - in->header->settings), in->header->settings,
             yes + strlen("screenshots=yes"));
    return buf;
}

static void count_snapshot(struct info *in, const struct rt_trace_packet *p)
{
    if (rt_trace_snapshot_begin_decode(p, &in->trim)) {
        in->trimmed = true;
        snprintf(in->trim_source, sizeof in->trim_source, "%.*s", (int)in->trim.source_length, in->trim.source);
    }
    (void)rt_trace_snapshot_end_decode(p, &in->trim_end); /* false for the other packet types */
}

/* retrace import's first note says where the trace came from, its last
 * how the blocks were mapped (docs/FORMATS.md §20). */
static void count_import(struct info *in, const struct rt_trace_packet *p)
{
    static const char source[] = "import: ", map[] = "import summary: ";
    const char *t = p->u.annotation.text;
    size_t n = p->u.annotation.length;
    if (!in->imported[0] && n > sizeof source - 1 && memcmp(t, source, sizeof source - 1) == 0)
        snprintf(in->imported, sizeof in->imported, "%.*s", (int)(n - (sizeof source - 1)), t + sizeof source - 1);
    else if (n > sizeof map - 1 && memcmp(t, map, sizeof map - 1) == 0)
        snprintf(in->import_map, sizeof in->import_map, "%.*s", (int)(n - (sizeof map - 1)), t + sizeof map - 1);
}

/* The layer's note for a command it was asked for and has no recorder for:
 * its calls are not in the trace (capture/unrecorded.c). */
static bool count_unrecorded(struct info *in, const struct rt_trace_packet *p)
{
    static const char prefix[] = "not recorded: ";
    const char *t = p->u.annotation.text;
    size_t n = p->u.annotation.length;
    if (n <= sizeof prefix - 1 || memcmp(t, prefix, sizeof prefix - 1) != 0)
        return false;
    if (in->unrecorded_count < INFO_MAX_UNRECORDED)
        in->unrecorded[in->unrecorded_count] = strndup(t + sizeof prefix - 1, n - (sizeof prefix - 1));
    in->unrecorded_count++;
    return true;
}

static void count_packet(struct info *in, const struct rt_trace_packet *p)
{
    switch (p->type) {
    case RT_TRACE_PACKET_CALL:
        in->calls++;
        in->per_command[p->u.call.command_id]++; /* the reader checked the id */
        break;
    case RT_TRACE_PACKET_MEMORY_UPDATE:
        in->memory_updates++;
        in->memory_bytes += p->u.memory.size;
        break;
    case RT_TRACE_PACKET_FRAME_END: in->frames++; break;
    case RT_TRACE_PACKET_ANNOTATION:
        in->annotations++;
        if (p->u.annotation.kind == RT_TRACE_ANNOTATION_EXTERNAL_MEMORY)
            count_external(in, p);
        else if (p->u.annotation.kind == RT_TRACE_ANNOTATION_SCREENSHOT)
            count_shot(in, p);
        else if (p->u.annotation.kind == RT_TRACE_ANNOTATION_NOTE && !count_unrecorded(in, p))
            count_import(in, p);
        break;
    case RT_TRACE_PACKET_VERIFY: count_verify(in, p); break;
    case RT_TRACE_PACKET_UNSUPPORTED: in->unsupported++; break;
    case RT_TRACE_PACKET_DEVICE_INFO:
        in->late_device = *p->u.device;
        in->device = &in->late_device;
        break;
    case RT_TRACE_PACKET_SNAPSHOT_BEGIN:
    case RT_TRACE_PACKET_SNAPSHOT_END:
    case RT_TRACE_PACKET_BUFFER_CONTENT:
    case RT_TRACE_PACKET_IMAGE_CONTENT:
    case RT_TRACE_PACKET_SYNC_STATE:
    case RT_TRACE_PACKET_QUERY_STATE:
    case RT_TRACE_PACKET_IMAGE_SAMPLES: count_snapshot(in, p); break;
    case RT_TRACE_PACKET_END: break;
    }
}

/* Reads every packet; in->status says how it ended. */

/* vkCreate* and vkAllocate* make handles: the likely cause of a handle the
 * trace never created. */
static bool creates_handles(const char *name)
{
    return name && (!strncmp(name, "vkCreate", 8) || !strncmp(name, "vkAllocate", 10));
}

/* NAMES joined by ", ", those that create handles only when CREATING. */
static void join_unrecorded(const struct info *in, bool creating, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (uint64_t i = 0; i < in->unrecorded_count && i < INFO_MAX_UNRECORDED; i++) {
        const char *name = in->unrecorded[i];
        if (!name || (creating && !creates_handles(name)))
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
}

/* A handle the trace never created, in a trace whose capture passed
 * creating commands through unrecorded: say which, since that is why. */
static void explain_refusal(struct info *in)
{
    char names[512];
    if (rt_ok(&in->refused) || !strstr(in->refused.msg, "never created"))
        return;
    join_unrecorded(in, true, names, sizeof names);
    if (!names[0])
        return;
    rt_status why = rt_errorf(in->refused.code, "%s: the capture did not record %s (the layer that made it "
                              "has no recorder for it), so the trace cannot replay", in->refused.msg, names);
    rt_status_free(&in->refused);
    in->refused = why;
}

static void read_trace(struct info *in, struct rt_trace_reader *r)
{
    in->header = rt_trace_reader_header(r);
    in->device = in->header->has_device ? &in->header->device : NULL;
    in->per_command = calloc(in->header->command_count + 1u, sizeof *in->per_command);
    if (!in->per_command) {
        in->status = rt_errorf(RT_ERR_INTERNAL, "out of memory");
        return;
    }
    if (in->check) {
        in->status = rt_replay_checker_create(in->header, &in->checker);
        if (!rt_ok(&in->status))
            return;
    }
    struct rt_trace_packet p;
    for (;;) {
        in->status = rt_trace_reader_next(r, &p);
        if (!rt_ok(&in->status) || p.type == RT_TRACE_PACKET_END)
            break;
        count_packet(in, &p);
        if (in->checker && rt_ok(&in->refused)) {
            in->refused = rt_replay_check_packet(in->checker, &p);
            in->refused_seq = p.seq;
        }
    }
    rt_trace_reader_progress(r, &in->progress);
    explain_refusal(in);
}

static int by_count(const void *a, const void *b)
{
    const struct command_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Commands that were called, most frequent first. */
static struct command_count *sorted_commands(const struct info *in, size_t *n_out)
{
    struct command_count *list = calloc(in->header->command_count + 1u, sizeof *list);
    size_t n = 0;
    for (uint32_t i = 0; list && i < in->header->command_count; i++)
        if (in->per_command[i])
            list[n++] = (struct command_count){in->header->command_names[i], in->per_command[i]};
    if (list)
        qsort(list, n, sizeof *list, by_count);
    *n_out = n;
    return list;
}

static void version_str(uint32_t v, char out[32])
{
    /* Vulkan's packing (VK_MAKE_API_VERSION), decoded without Vulkan headers. */
    snprintf(out, 32, "%u.%u.%u", (v >> 22) & 0x7f, (v >> 12) & 0x3ff, v & 0xfff);
}

static const char *device_type_name(uint32_t t)
{
    static const char *const names[] = {"other", "integrated GPU", "discrete GPU",
                                        "virtual GPU", "CPU"};
    return t < sizeof names / sizeof names[0] ? names[t] : "unknown type";
}

static const char *end_name(const struct rt_trace_progress *p)
{
    if (!p->ended)
        return NULL;
    return p->emergency ? "emergency flush (the capture died or exited without closing)"
                        : "clean close";
}

/* ------------------------------------------------------------------- text */

static void print_device_text(const struct rt_trace_device_info *d)
{
    char api[32];
    version_str(d->api_version, api);
    uint64_t heap_bytes = 0;
    for (uint32_t i = 0; i < d->memory_heap_count; i++)
        heap_bytes += d->memory_heaps[i].size;
    printf("device       %s (vendor 0x%04x, device 0x%04x, %s, API %s)\n", d->device_name,
           d->vendor_id, d->device_id, device_type_name(d->device_type), api);
    if (!d->driver_id && !d->driver_name[0] && !d->driver_info[0]) /* no VkPhysicalDeviceDriverProperties */
        printf("driver       not reported (API 1.0 device properties only; version 0x%08x)\n", d->driver_version);
    else
        printf("driver       %s, %s (driver id %u, version 0x%08x)\n", d->driver_name,
               d->driver_info, d->driver_id, d->driver_version);
    printf("memory       %u types, %u heaps (%" PRIu64 " MiB)\n", d->memory_type_count,
           d->memory_heap_count, heap_bytes >> 20);
}

/* "NAME VERSION", or "(none given)" for a program that named nothing (mpv,
 * ffmpeg): a blank name read as a hole in the line. */
static const char *name_version(const char *name, const char *version, char out[300])
{
    if (!name[0] && !strcmp(version, "0.0.0"))
        return "(none given)";
    snprintf(out, 300, "%s %s", name[0] ? name : "(no name)", version);
    return out;
}

static void print_header_text(const struct info *in)
{
    const struct rt_trace_header *h = in->header;
    char vk[32], app[32], engine[32], api[32];
    version_str(h->vk_header_version, vk);
    version_str(h->application_version, app);
    version_str(h->engine_version, engine);
    version_str(h->api_version, api);
    printf("trace        %s\n", in->path);
    printf("format       %u.%u (Vulkan headers %s, %u-bit pointers, compression %s)\n",
           h->version_major, h->version_minor, vk, h->pointer_size * 8u,
           rt_trace_compression_name(h->compression));
    char app_text[300], engine_text[300];
    printf("application  %s (engine %s, API %s)\n", name_version(h->application_name, app, app_text),
           name_version(h->engine_name, engine, engine_text), api);
    if (in->device)
        print_device_text(in->device);
    else
        printf("device       not recorded\n");
    char settings[1024];
    if (h->settings[0])
        printf("settings     %s\n", settings_text(in, settings, sizeof settings));
    if (in->shot_count) {
        printf("screenshots  %" PRIu64 " saved at capture: frame", in->shot_count);
        for (uint64_t i = 0; i < in->shot_count && i < INFO_MAX_SHOTS; i++)
            printf("%s %" PRIu64, i ? "," : in->shot_count > 1 ? "s" : "", in->shots[i]);
        printf("%s\n", in->shot_count > INFO_MAX_SHOTS ? ", ..." : "");
    }
    if (in->trimmed) {
        char sha[2 * RT_TRACE_SHA256_SIZE + 1];
        for (int i = 0; i < RT_TRACE_SHA256_SIZE; i++)
            snprintf(sha + 2 * i, 3, "%02x", in->trim.source_sha256[i]);
        printf("trimmed      frames %" PRIu64 "-%" PRIu64 " of %s (%" PRIu64 " frames, sha256 %s); snapshot %"
               PRIu64 " packets, %" PRIu64 " bytes\n", in->trim.first_frame, in->trim.last_frame, in->trim_source,
               in->trim.source_frames, sha, in->trim_end.packet_count, in->trim_end.bytes);
    }
    if (in->imported[0])
        printf("imported     %s\n", in->imported);
    if (in->import_map[0])
        printf("import map   %s\n", in->import_map);
    if (in->unrecorded_count) {
        char names[1024];
        join_unrecorded(in, false, names, sizeof names);
        printf("unrecorded   %s%s: looked up at capture, no recorder in that build; their calls are not in "
               "the trace\n", names, in->unrecorded_count > INFO_MAX_UNRECORDED ? ", ..." : "");
    }
}

static void print_counts_text(const struct info *in)
{
    const struct rt_trace_progress *p = &in->progress;
    printf("frames       %" PRIu64 "\n", in->frames);
    printf("calls        %" PRIu64 " (+%" PRIu64 " unsupported)\n", in->calls, in->unsupported);
    printf("memory       %" PRIu64 " updates, %" PRIu64 " bytes\n", in->memory_updates,
           in->memory_bytes);
    printf("annotations  %" PRIu64 "\n", in->annotations);
    printf("verification %" PRIu64 " points, %" PRIu64 " ranges, %" PRIu64 " bytes read back\n",
           in->verify_points, in->verify_ranges, in->verify_bytes);
    if (in->external_count)
        printf("external     %" PRIu64 " memory objects whose content is not in the trace:\n",
               in->external_count);
    for (uint64_t i = 0; i < in->external_count && i < INFO_MAX_EXTERNAL; i++)
        printf("  %s\n", in->external[i] ? in->external[i] : "(out of memory)");
    printf("blocks       %" PRIu64 "\n", p->blocks);
    printf("bytes        %" PRIu64 " stored, %" PRIu64 " raw (%.2fx)\n", p->good_bytes,
           p->raw_bytes, p->good_bytes ? (double)p->raw_bytes / (double)p->good_bytes : 0.0);
    const char *end = end_name(p);
    printf("end          %s\n", end ? end : "none (incomplete trace)");
    size_t n;
    struct command_count *list = sorted_commands(in, &n);
    printf("calls per command:\n");
    for (size_t i = 0; list && i < n; i++)
        printf("  %10" PRIu64 "  %s\n", list[i].count, list[i].name);
    free(list);
}

static void print_check_text(const struct info *in)
{
    const struct rt_trace_progress *p = &in->progress;
    if (rt_ok(&in->status) && rt_ok(&in->refused)) {
        printf("check        ok: %" PRIu64 " blocks, checksums, sizes and packets valid, every call "
               "decodes and uses only handles the trace made\n", p->blocks);
        return;
    }
    if (!rt_ok(&in->refused))
        printf("check        FAILED: replay would refuse %s\n", in->refused.msg);
    if (rt_ok(&in->status))
        return;
    printf("check        FAILED: %s\n", in->status.msg);
    printf("good prefix  %" PRIu64 " bytes, %" PRIu64 " blocks, %" PRIu64 " calls, %" PRIu64
           " complete frames\n", p->good_bytes, p->blocks, p->calls, p->frames);
}

/* ------------------------------------------------------------------- json */

static void add_hex(cJSON *obj, const char *key, const uint8_t *bytes, size_t n)
{
    char hex[2 * RT_TRACE_UUID_SIZE + 1];
    for (size_t i = 0; i < n && i < RT_TRACE_UUID_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    hex[2 * n] = '\0';
    cJSON_AddStringToObject(obj, key, hex);
}

static cJSON *device_json(const struct rt_trace_device_info *d)
{
    cJSON *o = cJSON_CreateObject();
    char api[32];
    version_str(d->api_version, api);
    cJSON_AddNumberToObject(o, "vendor_id", d->vendor_id);
    cJSON_AddNumberToObject(o, "device_id", d->device_id);
    cJSON_AddNumberToObject(o, "driver_version", d->driver_version);
    cJSON_AddNumberToObject(o, "driver_id", d->driver_id);
    cJSON_AddStringToObject(o, "api_version", api);
    cJSON_AddStringToObject(o, "device_type", device_type_name(d->device_type));
    cJSON_AddStringToObject(o, "device_name", d->device_name);
    cJSON_AddStringToObject(o, "driver_name", d->driver_name);
    cJSON_AddStringToObject(o, "driver_info", d->driver_info);
    add_hex(o, "pipeline_cache_uuid", d->pipeline_cache_uuid, RT_TRACE_UUID_SIZE);
    add_hex(o, "device_uuid", d->device_uuid, RT_TRACE_UUID_SIZE);
    add_hex(o, "driver_uuid", d->driver_uuid, RT_TRACE_UUID_SIZE);
    cJSON *types = cJSON_AddArrayToObject(o, "memory_types");
    for (uint32_t i = 0; i < d->memory_type_count; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "property_flags", d->memory_types[i].property_flags);
        cJSON_AddNumberToObject(t, "heap_index", d->memory_types[i].heap_index);
        cJSON_AddItemToArray(types, t);
    }
    cJSON *heaps = cJSON_AddArrayToObject(o, "memory_heaps");
    for (uint32_t i = 0; i < d->memory_heap_count; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "size", (double)d->memory_heaps[i].size);
        cJSON_AddNumberToObject(t, "flags", d->memory_heaps[i].flags);
        cJSON_AddItemToArray(heaps, t);
    }
    return o;
}

static cJSON *trim_json(const struct info *in)
{
    cJSON *o = cJSON_CreateObject();
    char sha[2 * RT_TRACE_SHA256_SIZE + 1];
    for (int i = 0; i < RT_TRACE_SHA256_SIZE; i++)
        snprintf(sha + 2 * i, 3, "%02x", in->trim.source_sha256[i]);
    cJSON_AddStringToObject(o, "source", in->trim_source);
    cJSON_AddStringToObject(o, "source_sha256", sha);
    cJSON_AddNumberToObject(o, "source_frames", (double)in->trim.source_frames);
    cJSON_AddNumberToObject(o, "first_frame", (double)in->trim.first_frame);
    cJSON_AddNumberToObject(o, "last_frame", (double)in->trim.last_frame);
    cJSON_AddNumberToObject(o, "snapshot_packets", (double)in->trim_end.packet_count);
    cJSON_AddNumberToObject(o, "snapshot_bytes", (double)in->trim_end.bytes);
    return o;
}

static void add_header_json(cJSON *o, const struct info *in)
{
    const struct rt_trace_header *h = in->header;
    char v[32];
    snprintf(v, sizeof v, "%u.%u", h->version_major, h->version_minor);
    cJSON_AddStringToObject(o, "format_version", v);
    version_str(h->vk_header_version, v);
    cJSON_AddStringToObject(o, "vk_header_version", v);
    cJSON_AddNumberToObject(o, "pointer_size", h->pointer_size);
    cJSON_AddStringToObject(o, "compression", rt_trace_compression_name(h->compression));
    cJSON *app = cJSON_AddObjectToObject(o, "application");
    cJSON_AddStringToObject(app, "name", h->application_name);
    version_str(h->application_version, v);
    cJSON_AddStringToObject(app, "version", v);
    cJSON_AddStringToObject(app, "engine", h->engine_name);
    version_str(h->engine_version, v);
    cJSON_AddStringToObject(app, "engine_version", v);
    version_str(h->api_version, v);
    cJSON_AddStringToObject(app, "api_version", v);
    char settings[1024];
    cJSON_AddStringToObject(o, "settings", settings_text(in, settings, sizeof settings));
    if (in->shot_count) {
        cJSON *shots = cJSON_AddArrayToObject(o, "screenshots");
        for (uint64_t i = 0; shots && i < in->shot_count && i < INFO_MAX_SHOTS; i++)
            cJSON_AddItemToArray(shots, cJSON_CreateNumber((double)in->shots[i]));
    }
    cJSON_AddItemToObject(o, "device", in->device ? device_json(in->device) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "trimmed", in->trimmed ? trim_json(in) : cJSON_CreateNull());
    cJSON *imp = in->imported[0] ? cJSON_AddObjectToObject(o, "imported") : NULL;
    if (!in->imported[0])
        cJSON_AddNullToObject(o, "imported");
    if (imp) {
        cJSON_AddStringToObject(imp, "source", in->imported);
        cJSON_AddStringToObject(imp, "map", in->import_map);
    }
}

static void add_counts_json(cJSON *o, const struct info *in)
{
    const struct rt_trace_progress *p = &in->progress;
    cJSON_AddNumberToObject(o, "frames", (double)in->frames);
    cJSON_AddNumberToObject(o, "calls", (double)in->calls);
    cJSON_AddNumberToObject(o, "unsupported", (double)in->unsupported);
    cJSON_AddNumberToObject(o, "memory_updates", (double)in->memory_updates);
    cJSON_AddNumberToObject(o, "memory_bytes", (double)in->memory_bytes);
    cJSON_AddNumberToObject(o, "annotations", (double)in->annotations);
    cJSON_AddNumberToObject(o, "verify_points", (double)in->verify_points);
    cJSON_AddNumberToObject(o, "verify_ranges", (double)in->verify_ranges);
    cJSON_AddNumberToObject(o, "verify_bytes", (double)in->verify_bytes);
    cJSON *unrec = cJSON_AddArrayToObject(o, "unrecorded");
    for (uint64_t i = 0; i < in->unrecorded_count && i < INFO_MAX_UNRECORDED; i++)
        cJSON_AddItemToArray(unrec, cJSON_CreateString(in->unrecorded[i] ? in->unrecorded[i] : ""));
    cJSON *ext = cJSON_AddArrayToObject(o, "external_memory");
    for (uint64_t i = 0; i < in->external_count && i < INFO_MAX_EXTERNAL; i++)
        cJSON_AddItemToArray(ext, cJSON_CreateString(in->external[i] ? in->external[i] : ""));
    cJSON_AddNumberToObject(o, "blocks", (double)p->blocks);
    cJSON_AddNumberToObject(o, "bytes_stored", (double)p->good_bytes);
    cJSON_AddNumberToObject(o, "bytes_raw", (double)p->raw_bytes);
    cJSON_AddStringToObject(o, "end", !p->ended ? "none" : p->emergency ? "emergency" : "clean");
    cJSON *cmds = cJSON_AddArrayToObject(o, "calls_per_command");
    size_t n;
    struct command_count *list = sorted_commands(in, &n);
    for (size_t i = 0; list && i < n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", list[i].name);
        cJSON_AddNumberToObject(c, "count", (double)list[i].count);
        cJSON_AddItemToArray(cmds, c);
    }
    free(list);
}

static void add_verdict_json(cJSON *o, const struct info *in)
{
    const struct rt_trace_progress *p = &in->progress;
    rt_status verdict = rt_ok(&in->status) ? in->refused : in->status;
    cJSON_AddBoolToObject(o, "ok", rt_ok(&verdict));
    if (!rt_ok(&in->refused)) {
        cJSON_AddNumberToObject(o, "refused_call", (double)in->refused_seq);
        cJSON_AddStringToObject(o, "refused", in->refused.msg);
    }
    if (rt_ok(&verdict))
        return;
    /* The error object every subcommand prints with --json (cli_fail), here
     * inside the report so stdout stays one JSON document. */
    cJSON *error = cJSON_AddObjectToObject(o, "error");
    cJSON_AddNumberToObject(error, "code", verdict.code);
    cJSON_AddStringToObject(error, "name", rt_code_name(verdict.code));
    cJSON_AddStringToObject(error, "message", verdict.msg);
    if (rt_ok(&in->status))
        return;
    cJSON *good = cJSON_AddObjectToObject(o, "good_prefix");
    cJSON_AddNumberToObject(good, "bytes", (double)p->good_bytes);
    cJSON_AddNumberToObject(good, "blocks", (double)p->blocks);
    cJSON_AddNumberToObject(good, "calls", (double)p->calls);
    cJSON_AddNumberToObject(good, "frames", (double)p->frames);
}

/* in->header is NULL when the file header itself was unreadable. */
static void print_json(const struct info *in)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "trace", in->path);
    if (in->header) {
        add_header_json(o, in);
        add_counts_json(o, in);
    }
    add_verdict_json(o, in);
    char *text = cJSON_Print(o);
    if (text)
        puts(text);
    free(text);
    cJSON_Delete(o);
}

/* ------------------------------------------------------------------- main */

/* 0 to go on, CLI_HELP_SHOWN, or an exit code. */
static int parse_args(int argc, char **argv, struct info *in)
{
    const struct rt_command *self = cli_find_command("info");
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == OPT_CHECK)
            in->check = true;
        else if (id == OPT_JSON)
            in->json = true;
        else if (in->path)
            return cli_usage_error(self, "more than one trace given");
        else
            in->path = p.value;
    }
    if (!in->path)
        return cli_usage_error(self, "no trace given");
    return 0;
}

int cmd_info_run(int argc, char **argv)
{
    struct info in = {0};
    int rc = parse_args(argc, argv, &in);
    if (rc)
        return cli_exit_code(rc);
    struct rt_trace_reader *r = NULL;
    in.status = rt_trace_reader_open(in.path, &r);
    if (rt_ok(&in.status))
        read_trace(&in, r);
    if (in.json) {
        print_json(&in);
    } else if (in.header) {
        print_header_text(&in);
        print_counts_text(&in);
        if (in.check)
            print_check_text(&in);
    }
    rt_status verdict = rt_status_copy(rt_ok(&in.status) ? &in.refused : &in.status);
    int code = rt_ok(&verdict) ? 0
               : in.json      ? (int)rt_status_drop(verdict) /* the report holds the error */
                              : cli_fail(rt_status_wrap(verdict, "%s", in.path));
    rt_status_free(&in.status);
    rt_status_free(&in.refused);
    rt_replay_checker_destroy(in.checker);
    free(in.per_command);
    for (uint64_t i = 0; i < in.external_count && i < INFO_MAX_EXTERNAL; i++)
        free(in.external[i]);
    for (uint64_t i = 0; i < in.unrecorded_count && i < INFO_MAX_UNRECORDED; i++)
        free(in.unrecorded[i]);
    rt_trace_reader_destroy(r);
    return code;
}
