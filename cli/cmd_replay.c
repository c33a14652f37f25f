/* cli/cmd_replay.c — `retrace replay TRACE`: re-execute a trace headless. */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "crash.h"
#include "frames_missed.h"
#include "replay.h"
#include "replay_config_args.h"
#include "report.h"
#include "settings.h"
#include "trace.h"

enum { OPT_DEVICE = 1, OPT_SCREENSHOTS, OPT_FRAMES, OPT_END_FRAME, OPT_READBACKS, OPT_LOOP,
       OPT_VALIDATE, OPT_STATS, OPT_MEMORY, OPT_WINDOW, OPT_VERIFY, OPT_JSON, OPT_VALIDATE_SYNC,
       OPT_VALIDATE_IGNORE, OPT_DUMP_DRAWS, OPT_DUMP_DIR, OPT_DUMP_ONLY, OPT_DUMP_BUFFERS,
       OPT_CONFIG = 1000 /* and up: the configuration's options (replay_config_args.c) */ };

/* The options, in the order the usage text lists them. */
static const struct cli_option options[] = {
    {"device", 0, CLI_VALUE, OPT_DEVICE, "INDEX|NAME", "replay device (default: one of the capture's vendor, else the first)"},
    {"screenshots", 0, CLI_VALUE, OPT_SCREENSHOTS, "DIR", "save frames as DIR/frame_NNNNNN.png (see README for formats)"},
    {"frames", 0, CLI_VALUE, OPT_FRAMES, "LIST",
     "frames to save, 1-based: 1,10,100-120, 5- or all (default 1); a frame not saved (past the last one "
     "replayed, or one that presented nothing) is a warning naming it and why, and exit 2"},
    {"readbacks", 0, CLI_VALUE, OPT_READBACKS, "DIR",
     "save every image the trace copies into a buffer (what a program without a swapchain reads back) as "
     "DIR/readback_NNNNNN.png (.bin + .json where no PNG holds the format); an image that cannot be saved is a "
     "warning, the replay goes on"},
    {"end-frame", 0, CLI_VALUE, OPT_END_FRAME, "N", "stop after frame N"},
    {"loop", 0, CLI_VALUE, OPT_LOOP, "N",
     "replay the whole trace N times (screenshots and readbacks of pass K are named ..._loopK.png)"},
    {"window", 0, CLI_FLAG, OPT_WINDOW, NULL, "also show the frames in an X11 window (needs DISPLAY)"},
    {"validate", 0, CLI_FLAG, OPT_VALIDATE, "[sync]",
     "enable the Khronos validation layer; count its messages; exit 1 if it reports errors; sync adds "
     "synchronization validation (missing barriers and waits, counted as hazards)"},
    /* "--validate sync" arrives as "--validate-sync" (cli_replay_config_join_validate) */
    {"validate-sync", 0, CLI_FLAG, OPT_VALIDATE_SYNC},
    {"validate-ignore", 0, CLI_VALUE, OPT_VALIDATE_IGNORE, "VUID[,VUID]",
     "repeatable; validation messages with these ids (the program's own errors: the same ids appear when it "
     "runs natively under the layer) are counted apart and do not fail the replay"},
    {"workarounds", 0, CLI_VALUE, OPT_CONFIG, "NAME[,NAME]",
     "workarounds or sets to replay with (retrace workarounds list)"},
    {"workarounds-dir", 0, CLI_VALUE, OPT_CONFIG + 1, "DIR", "look for NAME.set in DIR before the shipped sets"},
    {"delay", 0, CLI_VALUE, OPT_CONFIG + 2, "EVENT=DURATION[~JITTER]",
     "repeatable; EVENT: create-pipeline, create-shader, submit, present, acquire, map, wait (CPU side) or gpu "
     "(a GPU stall at the start of each submission); DURATION in us, ms or s"},
    {"seed", 0, CLI_VALUE, OPT_CONFIG + 3, "N", "the jitter sequence (default: a new one, printed)"},
    {"pipeline-cache", 0, CLI_VALUE, OPT_CONFIG + 4, "FILE",
     "load a pipeline cache from FILE, save it there at the end"},
    {"report", 0, CLI_VALUE, OPT_CONFIG + 5, "FILE.json",
     "write what the replay did (docs/FORMATS.md section 1)"},
    {"skip-draws", 0, CLI_VALUE, OPT_CONFIG + 6, "F:N[-M]",
     "leave draws N..M of frame F unrecorded (draws, dispatches, clears, copies, blits and resolves, counted "
     "from 1 in recording order; docs/FORMATS.md section 7)"},
    {"dump-draws", 0, CLI_VALUE, OPT_DUMP_DRAWS, "FRAME",
     "save what each draw of FRAME wrote (its attachments, or the image a clear, copy, blit or resolve wrote) "
     "into --dump-dir, with an index draws.json"},
    {"dump-dir", 0, CLI_VALUE, OPT_DUMP_DIR, "DIR", "where --dump-draws writes (made if missing)"},
    {"dump-only", 0, CLI_VALUE, OPT_DUMP_ONLY, "N[,N]", "with --dump-draws: save only these draws"},
    {"dump-buffers", 0, CLI_FLAG, OPT_DUMP_BUFFERS, NULL, "with --dump-draws: also the storage buffers a draw or "
     "dispatch may write and the buffers copies, fills and updates write (raw .bin + .json)"},
    {"memory", 0, CLI_VALUE, OPT_MEMORY, "auto|direct|rebind",
     "direct: the capture's allocations as they were; rebind: an allocation per buffer and image, for devices "
     "whose memory layout differs (auto picks by comparing devices)"},
    {"stats", 0, CLI_FLAG, OPT_STATS, NULL, "frames per second, calls and time per command"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, /* main() saw it: cli_json_errors() (replay_json.c) */
     "the result (or the error) as one JSON object on stdout"},
    {"verify", 0, CLI_FLAG, OPT_VERIFY, NULL,
     "check the memory the program read back after each wait, and its query results, against the capture; "
     "each divergence is printed; on the capture's kind of device a divergence exits 1"},
    {0},
};

void cmd_replay_usage(FILE *out)
{
    fprintf(out, "usage: retrace replay TRACE [OPTIONS]\n"
                 "Re-executes TRACE on a Vulkan device, headless: no window system is needed.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "ok"},
        {RT_ERR_FAILED, "validation errors or (--verify) divergences"},
        {RT_ERR_USAGE, "usage (also --frames past the last frame)"},
        {RT_ERR_BAD_INPUT, "unreadable or corrupt trace (the good part is replayed first)"},
        {RT_ERR_CANNOT_REPLAY, "the device cannot run the trace (the message names what is missing)"},
        {RT_ERR_INTERNAL, "internal error"},
        {CLI_EXIT_DRIVER_CRASHED, "the driver crashed (the message names the call; --report is still written)"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

/* --dump-draws and its companions. */
#define MAX_DUMP_ONLY 256
struct dump_args {
    struct rt_replay_draw_options draws;
    uint32_t only[MAX_DUMP_ONLY];
};

static int parse_dump_only(struct cli_args *p, struct dump_args *d)
{
    const char *v = p->value;
    d->draws.only = d->only;
    d->draws.only_count = 0;
    while (*v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (end == v || !n || n > UINT32_MAX || (*end && *end != ',') || d->draws.only_count == MAX_DUMP_ONLY)
            return cli_usage_error(p->cmd, "--dump-only '%s': want draw numbers from 1, comma-separated "
                                   "(at most %d)", p->value, MAX_DUMP_ONLY);
        d->only[d->draws.only_count++] = (uint32_t)n;
        v = *end ? end + 1 : end;
    }
    return d->draws.only_count ? 0 : cli_usage_error(p->cmd, "--dump-only needs draw numbers");
}

static int parse_dump(struct cli_args *p, int id, struct dump_args *d)
{
    switch (id) {
    case OPT_DUMP_DRAWS: return cli_args_u64(p, 1, UINT64_MAX, &d->draws.frame);
    case OPT_DUMP_DIR: d->draws.dir = p->value; return 0;
    case OPT_DUMP_ONLY: return parse_dump_only(p, d);
    case OPT_DUMP_BUFFERS: d->draws.buffers = true; return 0;
    }
    return 0;
}

static int check_dump(const struct rt_command *self, struct dump_args *d, struct rt_replay_options *o)
{
    if (d->draws.frame && !d->draws.dir)
        return cli_usage_error(self, "--dump-draws needs --dump-dir DIR");
    if (!d->draws.frame && (d->draws.dir || d->draws.only || d->draws.buffers))
        return cli_usage_error(self, "--dump-dir, --dump-only and --dump-buffers need --dump-draws FRAME");
    o->draws = d->draws.frame ? &d->draws : NULL;
    return 0;
}

static int parse_option(struct cli_args *p, int id, struct rt_replay_options *o, const char **frames)
{
    static const char *const modes[] = {"auto", "direct", "rebind", NULL};
    static const enum rt_replay_memory_mode mode_values[] = {
        RT_REPLAY_MEMORY_AUTO, RT_REPLAY_MEMORY_DIRECT, RT_REPLAY_MEMORY_REBIND};
    int index = 0, rc = 0;
    switch (id) {
    case OPT_DEVICE: o->device = p->value; break;
    case OPT_SCREENSHOTS: o->screenshot_dir = p->value; break;
    case OPT_READBACKS: o->readback_dir = p->value; break;
    case OPT_FRAMES: *frames = p->value; break;
    case OPT_END_FRAME: rc = cli_args_u64(p, 1, UINT64_MAX, &o->end_frame); break;
    case OPT_LOOP: rc = cli_args_u32(p, 1, UINT32_MAX, &o->loop); break;
    case OPT_VALIDATE: o->validate = true; break;
    case OPT_VALIDATE_SYNC: o->validate = true; break; /* and the configuration's, in parse_args */
    case OPT_WINDOW: o->window = true; break;
    case OPT_STATS: o->stats = true; break;
    case OPT_VERIFY: o->verify = true; break;
    case OPT_MEMORY:
        if (!(rc = cli_args_choice(p, modes, &index)))
            o->memory_mode = mode_values[index];
        break;
    }
    return rc;
}

/* --validate-ignore's ids: pointers into copies of the option values. */
#define MAX_IGNORE_OPTIONS 16
#define MAX_IGNORE_IDS 64
struct ignore_list {
    char *values[MAX_IGNORE_OPTIONS];
    uint32_t value_count;
    const char *ids[MAX_IGNORE_IDS];
    uint32_t count;
};

static int add_ignored(const struct rt_command *self, const char *value, struct ignore_list *l)
{
    if (l->value_count == MAX_IGNORE_OPTIONS)
        return cli_usage_error(self, "--validate-ignore: at most %d times", MAX_IGNORE_OPTIONS);
    char *copy = strdup(value);
    if (!copy)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "out of memory"));
    l->values[l->value_count++] = copy;
    for (char *id = copy, *next; id; id = next) {
        if ((next = strchr(id, ',')))
            *next++ = '\0';
        if (!*id)
            return cli_usage_error(self, "--validate-ignore: an empty message id in '%s'", value);
        if (l->count == MAX_IGNORE_IDS)
            return cli_usage_error(self, "--validate-ignore: at most %d ids", MAX_IGNORE_IDS);
        l->ids[l->count++] = id;
    }
    return 0;
}

static void ignore_list_finish(struct ignore_list *l)
{
    for (uint32_t i = 0; i < l->value_count; i++)
        free(l->values[i]);
}

/* 0 to go on, CLI_HELP_SHOWN, or an exit code. */
static int parse_args(int argc, char **argv, struct rt_replay_options *o, struct cli_replay_config *cc,
                      struct ignore_list *ignore, struct dump_args *dump)
{
    const struct rt_command *self = cli_find_command("replay");
    const char *frames = NULL;
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        int rc = 0;
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL && o->trace_path)
            return cli_usage_error(self, "expected one TRACE, got '%s' too", p.value);
        if (id == CLI_ARGS_POSITIONAL)
            o->trace_path = p.value;
        else if (id == OPT_VALIDATE_IGNORE)
            rc = add_ignored(self, p.value, ignore);
        else if (id >= OPT_DUMP_DRAWS && id <= OPT_DUMP_BUFFERS)
            rc = parse_dump(&p, id, dump);
        else if (id >= OPT_CONFIG || id == OPT_VALIDATE_SYNC) /* the configuration's (replay_config_args.c) */
            rc = cli_replay_config_option(self, id == OPT_VALIDATE_SYNC ? "validate" : p.option + 2,
                                          id == OPT_VALIDATE_SYNC ? "sync" : p.value, cc);
        if (!rc && id > 0 && id < OPT_CONFIG)
            rc = parse_option(&p, id, o, &frames);
        if (rc)
            return rc;
    }
    if (!o->trace_path)
        return cli_usage_error(self, "expected one TRACE");
    if (ignore->count && !o->validate)
        return cli_usage_error(self, "--validate-ignore needs --validate");
    o->validate_ignore = ignore->ids;
    o->validate_ignore_count = ignore->count;
    if (frames && !o->screenshot_dir)
        return cli_usage_error(self, "--frames needs --screenshots DIR");
    int dump_rc = check_dump(self, dump, o);
    if (dump_rc)
        return dump_rc;
    if (o->validate && cc->config.validate == RT_VALIDATE_OFF)
        cc->config.validate = RT_VALIDATE_ON; /* plain --validate: the configuration line says so */
    int rc = cli_replay_config_finish(self, cc);
    if (rc)
        return rc;
    o->config = &cc->config;
    rt_status s = rt_frame_list_parse(frames ? frames : "1", &o->frames);
    rc = rt_ok(&s) ? 0 : cli_usage_error(self, "--frames: %s", s.msg);
    rt_status_free(&s);
    return rc;
}

/* For "frame N of M": the trace's frame count, read once up front. */
static uint64_t count_frames(const char *path)
{
    struct rt_trace_reader *r;
    if (rt_status_drop(rt_trace_reader_open(path, &r)) != RT_OK)
        return 0;
    struct rt_trace_packet p;
    while (rt_status_drop(rt_trace_reader_next(r, &p)) == RT_OK && p.type != RT_TRACE_PACKET_END) {
    }
    struct rt_trace_progress pr;
    rt_trace_reader_progress(r, &pr);
    rt_trace_reader_destroy(r);
    return pr.frames;
}

/* Which ids the errors are, most first, and what --validate-ignore set aside. */
static void print_validation_ids(const struct rt_replay_result *res)
{
    const struct rt_replay_validation_id *top[5];
    uint32_t n = rt_replay_validation_top(res, top, 5);
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, "%s %s (%" PRIu64 " errors, %" PRIu64 " warnings)%s", i ? ";" : "validation: most frequent:",
                top[i]->id, top[i]->errors, top[i]->warnings, i + 1 == n ? "\n" : "");
    if (res->validation_replay)
        fprintf(stderr, "validation: %" PRIu64 " messages about replay's own calls (not the program's) not "
                "counted (RETRACE_LOG=info shows them)\n", res->validation_replay);
    if (res->validation_ignored)
        fprintf(stderr, "validation: %" PRIu64 " messages of --validate-ignore ids not counted\n",
                res->validation_ignored);
    else if (n && res->validation_errors)
        fprintf(stderr, "validation: errors the program makes itself (the same ids when it runs natively under "
                "the layer) can be set aside with --validate-ignore ID\n");
}

/* A trace that cannot be opened is refused before the configuration and the
 * "replayed 0 frames" summary are printed: the error is the only line. */
static rt_status trace_opens(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot read: Is a directory", path); /* the reader's words */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return rt_ok_status(); /* a pipe is read once, by the replay */
    struct rt_trace_reader *reader = NULL;
    rt_status s = rt_trace_reader_open(path, &reader);
    rt_trace_reader_destroy(reader);
    return rt_ok(&s) ? s : rt_status_wrap(s, "%s", path);
}

static void print_result(const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    fprintf(stderr, "replayed %" PRIu64 " frames, %" PRIu64 " calls (%" PRIu64 " skipped queries), %" PRIu64
            " memory updates in %.3f s on %s", res->frames, res->calls, res->skipped_calls, res->memory_updates,
            res->seconds, res->device_name[0] ? res->device_name : "no device");
    if (o->screenshot_dir)
        fprintf(stderr, "; %" PRIu64 " screenshots in %s", res->screenshots, o->screenshot_dir);
    if (o->readback_dir)
        fprintf(stderr, "; %" PRIu64 " read-backs in %s", res->readbacks, o->readback_dir);
    if (o->draws)
        fprintf(stderr, "; frame %" PRIu64 ": %" PRIu64 " draws, %" PRIu64 " draw images in %s", o->draws->frame,
                res->frame_draws, res->draw_images, o->draws->dir);
    if (o->config && o->config->skip_draws.frame)
        fprintf(stderr, "; %" PRIu64 " draws of frame %" PRIu64 " skipped", res->draws_skipped,
                o->config->skip_draws.frame);
    fputc('\n', stderr);
    if (res->memory_rebound) /* the cross-device path: a farm log says which ran */
        fprintf(stderr, "memory: rebound (%s): %" PRIu64 " buffers and images at their captured offsets, %" PRIu64
                " in memory of their own\n", o->memory_mode == RT_REPLAY_MEMORY_REBIND ? "--memory rebind"
                : "the capture device's memory layout differs", res->rebind_placed, res->rebind_moved);
    const struct rt_skip_draws *skip = o->config ? &o->config->skip_draws : NULL;
    if (skip && skip->frame && !res->draws_skipped && res->frames >= skip->frame)
        fprintf(stderr, "retrace: warning: --skip-draws %" PRIu64 ":%" PRIu32 ": frame %" PRIu64 " has %" PRIu64
                " draws, so none was skipped\n", skip->frame, skip->first, skip->frame, res->frame_draws);
    if (res->conversion_warnings)
        fprintf(stderr, "retrace: warning: %" PRIu64 " images could not be saved (see the warnings above)\n",
                res->conversion_warnings);
    if (o->validate)
        fprintf(stderr, "validation: %" PRIu64 " errors, %" PRIu64 " warnings%s", res->validation_errors,
                res->validation_warnings, o->config && o->config->validate == RT_VALIDATE_SYNC ? ", " : "\n");
    if (o->validate && o->config && o->config->validate == RT_VALIDATE_SYNC)
        fprintf(stderr, "%" PRIu64 " synchronization hazards\n", res->outcome.sync_hazards);
    if (o->validate)
        print_validation_ids(res);
    if (o->verify)
        fprintf(stderr, "verify: %" PRIu64 " points (%" PRIu64 " ranges, %" PRIu64 " bytes), %" PRIu64
                " query reads: %" PRIu64 " divergences%s\n", res->verify_points, res->verify_ranges,
                res->verify_bytes, res->verify_queries, res->verify_divergences,
                !res->verify_divergences ? "" : res->verify_same_kind ? " on the capture's kind of device"
                                                                      : " (another kind of device: not a failure)");
    if (o->verify && !rt_replay_verify_checked(res))
        fprintf(stderr, "verify: nothing was checked: %s\n", rt_replay_verify_nothing_why);
    if (o->verify && res->verify_unchecked_bytes)
        fprintf(stderr, "verify: %" PRIu64 " bytes were not checked: in this replay (rebound memory) no live "
                "buffer holds them\n", res->verify_unchecked_bytes);
    if (res->external_memory)
        fprintf(stderr, "retrace: warning: %" PRIu64 " imported memory objects' content is not in the trace "
                "(not reproduced)\n", res->external_memory);
    if (res->unsupported)
        fprintf(stderr, "retrace: warning: %" PRIu64 " calls were not recorded faithfully by the capture\n",
                res->unsupported);
}

/* Every output directory exists (made if needed) and is a writable directory,
 * before anything is replayed. */
static rt_status check_dirs(const struct rt_replay_options *o)
{
    const char *dirs[] = {o->screenshot_dir, o->readback_dir}, *flags[] = {"--screenshots", "--readbacks"};
    for (size_t i = 0; i < 2; i++) {
        struct stat st;
        if (!dirs[i])
            continue;
        if (mkdir(dirs[i], 0777) != 0 && errno != EEXIST)
            return rt_errorf(RT_ERR_USAGE, "%s: cannot create %s: %s", flags[i], dirs[i], strerror(errno));
        if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
            return rt_errorf(RT_ERR_USAGE, "%s: %s is not a directory", flags[i], dirs[i]);
        if (access(dirs[i], W_OK | X_OK) != 0)
            return rt_errorf(RT_ERR_USAGE, "%s: cannot write into %s: %s", flags[i], dirs[i], strerror(errno));
    }
    return rt_ok_status();
}

/* --report FILE: its folder exists and can be written, before anything is
 * replayed (a farm script reads the exit code as "there is a report"). */
static rt_status check_report(const char *report)
{
    if (!report)
        return rt_ok_status();
    char dir[PATH_MAX];
    const char *slash = strrchr(report, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - report) + (slash == report) : 1, slash ? report : ".");
    struct stat st;
    if (stat(dir, &st) != 0)
        return rt_errorf(RT_ERR_USAGE, "--report: cannot write %s: %s: %s", report, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "--report: cannot write %s: %s is not a directory", report, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return rt_errorf(RT_ERR_USAGE, "--report: cannot write into %s: %s", dir, strerror(errno));
    return rt_ok_status();
}

/* The frame delimiter the trace was captured with (its header says). */
static enum rt_frame_delimiter trace_delimiter(const char *path)
{
    struct rt_trace_reader *r;
    rt_status s = rt_trace_reader_open(path, &r);
    if (!rt_ok(&s))
        return RT_FRAME_DELIMITER_PRESENT;
    enum rt_frame_delimiter d = rt_capture_settings_described_delimiter(rt_trace_reader_header(r)->settings);
    rt_trace_reader_destroy(r);
    return d;
}

/* Every frame asked for and not saved is said, with why, never a silent
 * "3 screenshots": exit 2. */
static int check_frames_reached(const struct rt_replay_options *o, const struct rt_replay_result *res)
{
    if (!o->screenshot_dir)
        return 0;
    char past[160];
    snprintf(past, sizeof past, "past the last frame replayed (%" PRIu64 "%s)", res->last_frame,
             o->end_frame ? ", --end-frame" : " of the trace");
    const char *in = trace_delimiter(o->trace_path) == RT_FRAME_DELIMITER_SUBMIT
                         ? "it presented no image (the trace's frames end at each submit: "
                           "--frame-delimiter submit)"
                         : "its image could not be saved (see the warnings above)";
    uint64_t missed = cli_frames_missed("--frames", &o->frames, res->last_frame, res->outcome.screenshot_frames,
                                        res->outcome.screenshot_count, in, past);
    return missed ? RT_ERR_USAGE : 0;
}

/* The exit code, and in *S the error it says (a --verify divergence becomes one). */
static int exit_code(const struct rt_replay_options *o, const struct rt_replay_result *res, rt_status *s,
                     int frames_rc)
{
    if (rt_ok(s) && o->verify && res->verify_divergences && res->verify_same_kind)
        *s = rt_errorf(RT_ERR_FAILED, "verify: the replay diverged from the capture %s", res->verify_first);
    return !rt_ok(s) ? (int)s->code : o->validate && res->validation_errors ? RT_ERR_FAILED : frames_rc;
}

/* --report: written whatever happened, with the exit code the command returns;
 * false when it could not be written (said), which the exit code then says too. */
static bool finish_report(const struct rt_replay_options *o, const struct cli_replay_config *cc,
                          const struct rt_replay_result *res, rt_status given, int frames_rc)
{
    bool written = true;
    rt_status s = rt_status_copy(&given); /* GIVEN stays the caller's */
    int code = exit_code(o, res, &s, frames_rc);
    if (cc->report) {
        rt_status w = rt_replay_report_write(cc->report, o, res, code,
                                             !rt_ok(&s) ? s.msg : code == RT_ERR_FAILED ? "validation errors"
                                             : code ? "--frames names frames that were not saved" : "");
        if (!rt_ok(&w))
            fprintf(stderr, "retrace: error: %s\n", w.msg);
        written = rt_ok(&w);
        rt_status_free(&w);
    }
    rt_status_free(&s);
    return written;
}

static int finish_replay(const struct rt_replay_options *o, const struct cli_replay_config *cc,
                         struct rt_replay_result *res, rt_status s, int frames_rc)
{
    bool written = finish_report(o, cc, res, s, frames_rc);
    int code = exit_code(o, res, &s, frames_rc);
    rt_replay_outcome_finish(&res->outcome);
    if (rt_ok(&s) && !code && !written)
        return RT_ERR_USAGE; /* the output asked for is not there (said above) */
    return rt_ok(&s) ? code : cli_fail(s);
}

/* A fatal signal during the replay (replay/crash.h): said, reported and
 * exited here, from the signal handler. A report that hangs (the fault came
 * inside malloc) is cut short by the alarm: the exit code still says it. */
static struct crash_context {
    const struct rt_replay_options *o;
    const struct cli_replay_config *cc;
    const struct rt_replay_result *res;
    int code;
} crashed;

static void crash_deadline(int sig)
{
    (void)sig;
    _exit(crashed.code);
}

static void on_crash(const struct rt_replay_crash *c, void *ctx)
{
    struct crash_context *x = ctx;
    x->code = c->in_retrace ? RT_ERR_INTERNAL : CLI_EXIT_DRIVER_CRASHED;
    signal(SIGALRM, crash_deadline);
    alarm(10);
    char msg[400];
    snprintf(msg, sizeof msg, "%s crashed (%s) at call %" PRIu64 " (%s, frame %" PRIu64 "%s)%s",
             c->in_retrace ? "retrace" : "the driver", c->signal_name, c->call,
             c->command[0] ? c->command : "between calls", c->frame,
             c->other_thread ? "; on a thread of the driver's, running the last submit" : "",
             c->in_retrace ? ": a bug in retrace" : "");
    fprintf(stderr, "%sretrace: error: %s\n", x->o->progress ? "\n" : "", msg);
    if (x->cc->report) {
        rt_status w = rt_replay_report_write(x->cc->report, x->o, x->res, x->code, msg);
        if (!rt_ok(&w))
            fprintf(stderr, "retrace: error: %s\n", w.msg);
    }
    if (cli_json_errors())
        cli_replay_json_crash(x->o, x->res, x->code, msg);
    fflush(stdout);
    _exit(x->code);
}

int cmd_replay_run(int argc, char **argv)
{
    struct rt_replay_options o = {0};
    struct cli_replay_config cc = {0};
    struct ignore_list ignore = {0};
    static struct dump_args dump; /* o points into it until the replay ends */
    char **args = cli_replay_config_join_validate(argc, argv);
    if (!args)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "out of memory"));
    int count = 0;
    while (args[count])
        count++;
    int rc = parse_args(count, args, &o, &cc, &ignore, &dump);
    free(args);
    if (rc) {
        ignore_list_finish(&ignore);
        return rc < 0 ? 0 : rc;
    }
    rt_status dirs = trace_opens(o.trace_path);
    if (rt_ok(&dirs))
        dirs = check_dirs(&o);
    if (rt_ok(&dirs))
        dirs = check_report(cc.report);
    if (rt_ok(&dirs))
        dirs = cli_check_device(o.device); /* names the choices (cmd_devices.c) */
    if (!rt_ok(&dirs)) {
        rt_frame_list_finish(&o.frames);
        ignore_list_finish(&ignore);
        return cli_fail(dirs);
    }
    o.progress = isatty(STDERR_FILENO);
    if (o.progress)
        o.total_frames = count_frames(o.trace_path);
    struct rt_replay_result res;
    cli_replay_config_print(&cc);
    crashed = (struct crash_context){&o, &cc, &res, 0};
    rt_replay_on_crash(on_crash, &crashed);
    rt_status s = rt_replay_run(&o, &res);
    rt_replay_on_crash(NULL, NULL);
    if (!cli_json_errors())
        print_result(&o, &res);
    int frames_rc = rt_ok(&s) ? check_frames_reached(&o, &res) : 0;
    rt_frame_list_finish(&o.frames);
    if (cli_json_errors()) { /* --json: one object, the error inside (replay_json.c) */
        finish_report(&o, &cc, &res, s, frames_rc);
        int json_rc = cli_replay_json_result(&o, &res, s, frames_rc);
        rt_replay_outcome_finish(&res.outcome);
        ignore_list_finish(&ignore);
        return json_rc;
    }
    rc = finish_replay(&o, &cc, &res, s, frames_rc);
    ignore_list_finish(&ignore);
    return rc;
}
