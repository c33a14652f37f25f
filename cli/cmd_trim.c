/*
 * cli/cmd_trim.c — `retrace trim IN --frames A[-B] -o OUT [--check]`: a trace
 * cut to frames A..B with a state snapshot (trim/trim.h), and its check.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "capture_trim.h"
#include "cli.h"
#include "file.h"
#include "trim.h"

enum { OPT_FRAMES = 1, OPT_OUT, OPT_CHECK, OPT_DEVICE, OPT_MEMORY };
static const struct cli_option options[] = {
    {"frames", 0, CLI_VALUE, OPT_FRAMES, "A[-B]", "IN's frames to keep (A alone: one frame); frames count from 1"},
    {"output", 'o', CLI_VALUE, OPT_OUT, "OUT", "the trimmed trace (not IN)"},
    {"check", 0, CLI_FLAG, OPT_CHECK, NULL,
     "then replay OUT and IN's frames A..B on the same device and compare every frame pixel by pixel (and the "
     "verification points): exit 1 on a difference"},
    {"device", 0, CLI_VALUE, OPT_DEVICE, "INDEX|NAME", "replay device (default: lavapipe, else replay's choice)"},
    {"memory", 0, CLI_VALUE, OPT_MEMORY, "auto|direct|rebind", "replay memory mode while trimming, as for replay"},
    {0}};

void cmd_trim_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace trim IN.rtrace --frames A[-B] -o OUT.rtrace [--check] [--device D] [--memory M]\n"
            "  Writes a trace whose frames 1..B-A+1 render what IN's frames A..B render: IN is\n"
            "  replayed headless up to frame A (on lavapipe where there is one), then OUT gets a\n"
            "  state snapshot (every live object's creation, memory bindings, descriptor sets,\n"
            "  recorded command buffers, and every buffer's and image's contents as the device\n"
            "  holds them at A) and IN's frames A..B as they are. A damaged IN trims its good part.\n");
    cli_usage_options(out, options);
    fprintf(out, "exit: 0 written (and identical), 1 --check found a difference, 2 usage (a range past\n"
                 "IN's end names its last frame), 3 unreadable or corrupt IN before frame A, 4 the\n"
                 "device cannot replay IN, or IN holds at frame A what a snapshot cannot carry yet\n"
                 "(sparse resources, planar images with content: named)\n");
}

static int parse_args(int argc, char **argv, struct rt_trim_options *o, bool *check)
{
    static const char *const modes[] = {"auto", "direct", "rebind", NULL};
    static const enum rt_replay_memory_mode mode_values[] = {RT_REPLAY_MEMORY_AUTO, RT_REPLAY_MEMORY_DIRECT,
                                                             RT_REPLAY_MEMORY_REBIND};
    const struct rt_command *self = cli_find_command("trim");
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    const char *frames = NULL;
    int rc = 0, index = 0;
    for (int id; !rc && (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL && o->in)
            return cli_usage_error(self, "more than one trace given");
        if (id == CLI_ARGS_POSITIONAL)
            o->in = p.value;
        else if (id == OPT_FRAMES)
            frames = p.value;
        else if (id == OPT_OUT)
            o->out = p.value;
        else if (id == OPT_CHECK)
            *check = true;
        else if (id == OPT_DEVICE)
            o->device = p.value;
        else if (id == OPT_MEMORY && !(rc = cli_args_choice(&p, modes, &index)))
            o->memory_mode = mode_values[index];
    }
    if (rc)
        return rc;
    if (!o->in)
        return cli_usage_error(self, "no trace given");
    if (!frames)
        return cli_usage_error(self, "--frames A-B is required");
    if (!o->out)
        return cli_usage_error(self, "-o OUT is required");
    return capture_trim_parse(self, "--frames", frames, &o->first, &o->last);
}

static void print_result(const struct rt_trim_options *o, const struct rt_trim_result *r, uint64_t in_bytes)
{
    if (r->damaged)
        fprintf(stderr, "retrace: warning: %s is damaged (%s); trimmed its good part, frames %" PRIu64 "-%" PRIu64
                "\n", o->in, r->damage, o->first, o->first + r->frames - 1);
    printf("trimmed      frames %" PRIu64 "-%" PRIu64 " of %s (%" PRIu64 " frames) -> %s\n", o->first,
           o->first + (r->frames ? r->frames - 1 : 0), o->in, r->source_frames, o->out);
    printf("snapshot     %" PRIu64 " packets, %" PRIu64 " bytes: %" PRIu64 " calls kept of %" PRIu64 " before frame %"
           PRIu64 ", %" PRIu64 " buffers and %" PRIu64 " images (%" PRIu64 " content bytes), %" PRIu64
           " fences/semaphores/events, %" PRIu64 " queries available in %" PRIu64 " query pools\n",
           r->snapshot_packets, r->snapshot_bytes, r->kept_calls, r->kept_calls + r->dropped_calls, o->first,
           r->buffers, r->images, r->content_bytes, r->sync_objects, r->queries_available, r->query_pools);
    if (r->memories)
        printf("memory       %" PRIu64 " bytes of %" PRIu64 " host-visible allocations that no live buffer or image "
               "covers\n", r->memory_bytes, r->memories);
    if (r->multisampled_images || r->samples_not_carried)
        printf("samples      %" PRIu64 " multisampled images carried sample by sample, %" PRIu64 " layers or "
               "aspects not (warned above)\n", r->multisampled_images, r->samples_not_carried);
    printf("size         %" PRIu64 " bytes, %.1f%% of the original's %" PRIu64 "\n", r->out_bytes,
           in_bytes ? 100.0 * (double)r->out_bytes / (double)in_bytes : 0.0, in_bytes);
    printf("time         replay to frame %" PRIu64 " %.2f s, contents read %.2f s, writing %.2f s\n", o->first,
           r->replay_seconds, r->read_seconds, r->write_seconds);
}

static uint64_t file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

int cmd_trim_run(int argc, char **argv)
{
    struct rt_trim_options o = {.progress = isatty(2)};
    bool check = false;
    int rc = parse_args(argc, argv, &o, &check);
    if (rc)
        return cli_exit_code(rc);
    rt_status s = rt_output_file_check("-o", o.out); /* before the replay to frame A, not after it */
    if (rt_ok(&s))
        s = cli_check_device(o.device);
    struct rt_trim_result r;
    if (rt_ok(&s))
        s = rt_trim_run(&o, &r);
    if (!rt_ok(&s))
        return cli_fail(s);
    print_result(&o, &r, file_size(o.in));
    if (!check)
        return 0;
    o.last = o.first + r.frames - 1; /* a damaged IN's good part */
    struct rt_trim_check_result c;
    s = rt_trim_check(&o, &c);
    if (rt_ok(&s))
        printf("check        ok: %" PRIu64 " of %" PRIu64 " frames identical to the original's (%" PRIu64
               " with screenshots)\n", c.identical, r.frames, c.frames);
    return cli_fail(s);
}
