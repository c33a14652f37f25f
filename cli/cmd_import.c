/*
 * cli/cmd_import.c — `retrace import CAPTURE.gfxr -o OUT.rtrace`: a
 * GFXReconstruct capture converted into a retrace trace (import/import.h).
 */
#include <inttypes.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "file.h"
#include "import.h"

enum { OPT_OUT = 1, OPT_KEEP_GOING, OPT_COMPRESSION, OPT_DELIMITER };
static const struct cli_option options[] = {
    {"output", 'o', CLI_VALUE, OPT_OUT, "OUT", "the trace to write (default: CAPTURE with .rtrace for .gfxr)"},
    {"keep-going", 0, CLI_FLAG, OPT_KEEP_GOING, NULL,
     "on a block that is not imported, keep the trace up to it and say what was left (exit 3 all the same)"},
    {"compression", 0, CLI_VALUE, OPT_COMPRESSION, "zstd|none", "block compression of OUT"},
    {"frame-delimiter", 0, CLI_VALUE, OPT_DELIMITER, "present|submit",
     "what ends a frame (default: present, or submit for a capture that never presents)"},
    {0}};

void cmd_import_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace import CAPTURE.gfxr [-o OUT.rtrace] [--keep-going] [--compression C]\n"
            "                      [--frame-delimiter present|submit]\n"
            "  Converts a GFXReconstruct capture (file format 0.0/0.1; compression none, LZ4 or\n"
            "  zstd; full or trimmed) into a trace every retrace command accepts: its Vulkan calls,\n"
            "  the memory contents it recorded, its device and frames, a trimmed capture's state\n"
            "  snapshot (docs/FORMATS.md section 20 says what becomes what). Anything not\n"
            "  understood is refused by name, never guessed.\n");
    cli_usage_options(out, options);
    fprintf(out, "exit: 0 imported, 2 usage, 3 a block not imported (nothing written, or with --keep-going\n"
                 "the part before it) or a truncated capture (its good part written), 5 internal error\n");
}

static char default_out[4096];

static int parse_args(int argc, char **argv, struct rt_import_options *o)
{
    static const char *const compressions[] = {"zstd", "none", NULL};
    static const enum rt_trace_compression values[] = {RT_TRACE_COMPRESSION_ZSTD, RT_TRACE_COMPRESSION_NONE};
    static const char *const delimiters[] = {"present", "submit", NULL};
    static const enum rt_import_delimiter delimiter_values[] = {RT_IMPORT_DELIMITER_PRESENT,
                                                                RT_IMPORT_DELIMITER_SUBMIT};
    const struct rt_command *self = cli_find_command("import");
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    int rc = 0, index = 0;
    for (int id; !rc && (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL && o->in)
            return cli_usage_error(self, "more than one capture given");
        if (id == CLI_ARGS_POSITIONAL)
            o->in = p.value;
        else if (id == OPT_OUT)
            o->out = p.value;
        else if (id == OPT_KEEP_GOING)
            o->keep_going = true;
        else if (id == OPT_COMPRESSION && !(rc = cli_args_choice(&p, compressions, &index)))
            o->compression = values[index];
        else if (id == OPT_DELIMITER && !(rc = cli_args_choice(&p, delimiters, &index)))
            o->delimiter = delimiter_values[index];
    }
    if (rc)
        return rc;
    if (!o->in)
        return cli_usage_error(self, "no capture given");
    size_t n = strlen(o->in);
    if (!o->out && (n < 5 || strcmp(o->in + n - 5, ".gfxr") != 0 || n + 3 >= sizeof default_out))
        return cli_usage_error(self, "-o OUT is required when CAPTURE does not end in .gfxr");
    if (!o->out) {
        snprintf(default_out, sizeof default_out, "%.*s.rtrace", (int)(n - 5), o->in);
        o->out = default_out;
    }
    if (rt_same_file(o->in, o->out)) /* the import would replace the capture it reads */
        return cli_usage_error(self, "-o %s would overwrite the capture", o->out);
    rt_status w = rt_output_file_check("-o", o->out); /* before the import, not after it */
    if (!rt_ok(&w)) {
        rc = cli_usage_error(self, "%s", w.msg);
        rt_status_free(&w);
        return rc;
    }
    return 0;
}

static void print_summary(const struct rt_import_options *o, const struct rt_import_summary *s)
{
    printf("imported     %s (GFXReconstruct %s, file format %u.%u, compression %s, %" PRIu64 " bytes) -> %s\n",
           o->in, s->gfxr_version[0] ? s->gfxr_version : "unknown", s->file_major, s->file_minor,
           s->compression, s->bytes_in, o->out);
    printf("blocks       %" PRIu64 " mapped: %" PRIu64 " calls on %" PRIu64 " threads, %" PRIu64 " memory fills (%"
           PRIu64 " bytes), %" PRIu64 " device properties, %" PRIu64 " annotations, %" PRIu64 " frame markers\n",
           s->blocks, s->calls, s->threads, s->fills, s->fill_bytes, s->device_blocks, s->annotations, s->markers);
    printf("trace        %" PRIu64 " frames (ended by %s), %" PRIu64 " calls, %" PRIu64 " bytes (%.2fx the capture)\n",
           s->out.frames, s->submit_frames ? "submits" : "presents", s->out.calls, s->out.file_bytes,
           s->bytes_in ? (double)s->out.file_bytes / (double)s->bytes_in : 0.0);
    if (s->trimmed)
        printf("trimmed      frames %" PRIu64 "-%" PRIu64 ": %" PRIu64 " buffer and %" PRIu64 " image contents -> %"
               PRIu64 " snapshot packets (%" PRIu64 " bytes), %" PRIu64 " images without content\n",
               s->first_frame, s->last_frame, s->buffer_inits, s->image_inits, s->content_packets,
               s->content_bytes, s->layout_only_images);
    if (s->stopped)
        printf("stopped      at block %" PRIu64 " (offset %" PRIu64 "); %" PRIu64 " blocks after it not imported\n",
               s->stop_block, s->stop_offset, s->blocks_left);
}

int cmd_import_run(int argc, char **argv)
{
    struct rt_import_options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return cli_exit_code(rc);
    struct rt_import_summary sum;
    rt_status s = rt_import_gfxr(&o, &sum);
    if (!rt_ok(&s) && !strstr(s.msg, o.in))
        s = rt_status_wrap(s, "%s", o.in); /* which file, as replay and info say */
    if (!rt_ok(&s) && sum.stopped && sum.out.file_bytes)
        print_summary(&o, &sum);
    else if (rt_ok(&s))
        print_summary(&o, &sum);
    return cli_fail(s);
}
