/* cli/cmd_golden.c — `retrace golden`: manage golden images and expectations in the store. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "file.h"
#include "png_io.h"
#include "store.h"

struct golden_args {
    const char *db, *trace, *device, *approved_by, *output, *note;
    uint32_t frame, keep_runs;
    bool json;
    char **rest; /* positional arguments after the action */
    int rest_count;
};

static int usage(const char *fmt, const char *arg)
{
    return cli_usage_error(cli_find_command("golden"), fmt, arg);
}

enum { OPT_DB = 1, OPT_TRACE, OPT_FRAME, OPT_DEVICE, OPT_APPROVED_BY, OPT_OUTPUT, OPT_NOTE,
       OPT_JSON, OPT_KEEP_RUNS };

static const struct cli_option options[] = {
    {"db", 0, CLI_VALUE, OPT_DB, "DB", "the golden store (default: $RETRACE_DB)"},
    {"trace", 0, CLI_VALUE, OPT_TRACE, "NAME", "the trace a golden or an expectation is for"},
    {"frame", 0, CLI_VALUE, OPT_FRAME, "N", "its frame, from 1"},
    {"device", 0, CLI_VALUE, OPT_DEVICE, "KEY", "the device key (retrace devices); without it: any device"},
    {"approved-by", 0, CLI_VALUE, OPT_APPROVED_BY, "WHO", "who approved the golden"},
    {"output", 'o', CLI_VALUE, OPT_OUTPUT, "OUT.png", "show: write the image there"},
    {"note", 0, CLI_VALUE, OPT_NOTE, "TEXT", "expect: why"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "list: one JSON array"},
    {"keep-runs", 0, CLI_VALUE, OPT_KEEP_RUNS, "DAYS", "gc: keep the runs of the last DAYS days"},
    {0},
};

void cmd_golden_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace golden add --trace NAME --frame N [--device KEY] [--approved-by WHO]"
            " IMAGE.png\n"
            "       retrace golden list [--trace NAME] [--frame N] [--device KEY] [--json]\n"
            "       retrace golden show ID [-o OUT.png]\n"
            "       retrace golden rm ID\n"
            "       retrace golden mark ID accepted|known-bad\n"
            "       retrace golden export DIR\n"
            "       retrace golden import DIR\n"
            "       retrace golden expect --trace NAME [--device KEY] skip|flaky|crash|hang|none"
            " [--note TEXT]\n"
            "       retrace golden gc --keep-runs DAYS\n"
            "every form takes --db DB (default: $RETRACE_DB). Without --device a golden or\n"
            "an expectation applies to any device. add prints the golden's id; the same\n"
            "image added again for the same key keeps its id. import is idempotent and\n"
            "all-or-nothing. gc removes the runs that started more than DAYS days ago, their\n"
            "results and the images no other result names (never a golden), and says what\n"
            "it freed.\n");
    cli_usage_options(out, options);
    static const struct cli_exit exits[] = {
        {RT_OK, "ok"},
        {RT_ERR_USAGE, "usage"},
        {RT_ERR_BAD_INPUT, "a missing, corrupt, newer-schema or locked store, a write to a read-only one, an "
                           "unknown id, an image that is not a PNG"},
        {RT_ERR_INTERNAL, "internal error (a file that cannot be written)"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

static int parse_option(struct cli_args *p, int id, struct golden_args *a)
{
    switch (id) {
    case OPT_DB: a->db = p->value; break;
    case OPT_TRACE: a->trace = p->value; break;
    case OPT_DEVICE: a->device = p->value; break;
    case OPT_APPROVED_BY: a->approved_by = p->value; break;
    case OPT_OUTPUT: a->output = p->value; break;
    case OPT_NOTE: a->note = p->value; break;
    case OPT_JSON: a->json = true; break;
    case OPT_FRAME: return cli_args_u32(p, 1, UINT32_MAX, &a->frame);
    case OPT_KEEP_RUNS: return cli_args_u32(p, 1, 100000, &a->keep_runs);
    }
    return 0;
}

/* ARGV[0] is the action. 0 when parsed, CLI_HELP_SHOWN, or a usage error's exit code. */
static int parse_args(int argc, char **argv, struct golden_args *a)
{
    memset(a, 0, sizeof *a);
    a->db = getenv("RETRACE_DB");
    a->rest = calloc((size_t)argc, sizeof *a->rest);
    if (!a->rest)
        return cli_fail(rt_errorf(RT_ERR_INTERNAL, "out of memory"));
    struct cli_args p;
    cli_args_init(&p, cli_find_command("golden"), argc, argv, options, 0);
    for (int id; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        int rc = 0;
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL)
            a->rest[a->rest_count++] = (char *)p.value;
        else if ((rc = parse_option(&p, id, a)))
            return rc;
    }
    if (!a->db || !*a->db)
        return usage("%s", "no database: give --db DB or set RETRACE_DB");
    return 0;
}

static int need_rest(const struct golden_args *a, int count, const char *what)
{
    if (a->rest_count != count)
        return usage("expected %s after the action", what);
    return 0;
}

static int parse_id(const char *text, int64_t *id_out)
{
    uint64_t v = 0;
    if (!cli_parse_u64(text, 1, INT64_MAX, &v))
        return cli_bad_value(cli_find_command("golden"), "ID", "a golden id (1 or more)", text);
    *id_out = (int64_t)v;
    return 0;
}

/* Opens the store, runs FN on it, closes it; returns FN's status. */
static rt_status with_store(const struct golden_args *a, enum rt_store_mode mode,
                            rt_status (*fn)(struct rt_store *, const struct golden_args *,
                                            void *),
                            void *ctx)
{
    struct rt_store *store = NULL;
    RT_TRY(rt_store_open(a->db, mode, &store));
    rt_status s = fn(store, a, ctx);
    rt_store_close(store);
    return s;
}

struct add_ctx {
    const uint8_t *png;
    size_t size;
    int64_t id;
    bool created;
};

static rt_status add_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    struct add_ctx *c = ctx;
    struct rt_golden_new g = {.trace = a->trace, .frame = a->frame, .device_key = a->device,
                              .png = c->png, .png_size = c->size,
                              .approved_by = a->approved_by, .status = RT_GOLDEN_ACCEPTED};
    return rt_store_golden_put(store, &g, &c->id, &c->created);
}

static int golden_add(const struct golden_args *a)
{
    if (!a->trace || !a->frame)
        return usage("%s", "add needs --trace NAME and --frame N");
    if (a->rest_count != 1)
        return usage("%s", "add needs exactly one IMAGE.png");
    struct add_ctx c = {0};
    uint8_t *png = NULL;
    rt_status s = rt_file_read(a->rest[0], &png, &c.size);
    struct rt_image image = {0};
    /* Checked here as well as in the store so the error names the file. */
    if (rt_ok(&s))
        s = rt_status_wrap(rt_png_read_memory(png, c.size, &image), "%s", a->rest[0]);
    rt_image_finish(&image);
    c.png = png;
    if (rt_ok(&s))
        s = with_store(a, RT_STORE_CREATE, add_fn, &c);
    free(png);
    if (!rt_ok(&s))
        return cli_fail(s);
    printf("%" PRId64 "\n", c.id);
    if (!c.created)
        fprintf(stderr, "retrace golden: that image is already golden %" PRId64 "\n", c.id);
    return 0;
}

static cJSON *golden_json(const struct rt_golden *g)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "id", (double)g->id);
    cJSON_AddStringToObject(o, "trace", g->trace);
    cJSON_AddNumberToObject(o, "frame", g->frame);
    cJSON_AddStringToObject(o, "device", g->device_key);
    cJSON_AddNumberToObject(o, "size", (double)g->size);
    cJSON_AddNumberToObject(o, "width", g->width);
    cJSON_AddNumberToObject(o, "height", g->height);
    cJSON_AddStringToObject(o, "hash", g->hash);
    cJSON_AddStringToObject(o, "status", rt_golden_status_name(g->status));
    cJSON_AddStringToObject(o, "approved_by", g->approved_by);
    cJSON_AddStringToObject(o, "created_at", g->created_at);
    return o;
}

static rt_status print_json(const struct rt_golden_list *list)
{
    cJSON *array = cJSON_CreateArray();
    for (size_t i = 0; array && i < list->count; i++) {
        cJSON *o = golden_json(&list->items[i]);
        if (!o || !cJSON_AddItemToArray(array, o)) {
            cJSON_Delete(o);
            cJSON_Delete(array);
            array = NULL;
        }
    }
    return cli_print_json(array);
}

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

static rt_status list_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    (void)ctx;
    struct rt_golden_filter filter = {.trace = a->trace, .frame = a->frame,
                                      .device_key = a->device};
    struct rt_golden_list list;
    RT_TRY(rt_store_golden_list(store, &filter, &list));
    rt_status s = rt_ok_status();
    if (a->json)
        s = print_json(&list);
    for (size_t i = 0; !a->json && i < list.count; i++) {
        const struct rt_golden *g = &list.items[i];
        printf("%" PRId64 "\t%s\t%u\t%s\t%" PRIu64 "\t%s\t%s\t%s\t%s\n", g->id, g->trace,
               g->frame, or_dash(g->device_key), g->size, g->hash,
               rt_golden_status_name(g->status), or_dash(g->approved_by), g->created_at);
    }
    rt_golden_list_finish(&list);
    return s;
}

static int golden_list(const struct golden_args *a)
{
    if (a->rest_count)
        return usage("unexpected argument '%s'", a->rest[0]);
    return cli_fail(with_store(a, RT_STORE_READ_ONLY, list_fn, NULL));
}

static rt_status write_png(const char *path, const struct rt_golden *g)
{
    FILE *f = fopen(path, "wb");
    if (!f) /* the user's path (a folder missing, no permission): exit 2, as capture's -o */
        return rt_errorf(RT_ERR_USAGE, "-o: cannot write %s: %s", path, strerror(errno));
    bool ok = fwrite(g->png, 1, g->png_size, f) == g->png_size;
    ok = fclose(f) == 0 && ok;
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "cannot write %s", path);
}

static rt_status show_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    struct rt_golden g;
    RT_TRY(rt_store_golden_get(store, *(int64_t *)ctx, a->output != NULL, &g));
    rt_status s = rt_ok_status();
    if (a->output) {
        s = write_png(a->output, &g);
    } else {
        printf("id: %" PRId64 "\ntrace: %s\nframe: %u\ndevice: %s\nstatus: %s\n"
               "size: %" PRIu64 " bytes (%ux%u)\nhash: %s\napproved_by: %s\n",
               g.id, g.trace, g.frame, g.device_key[0] ? g.device_key : "(any)",
               rt_golden_status_name(g.status), g.size, g.width, g.height, g.hash,
               or_dash(g.approved_by));
        if (g.from_result)
            printf("from_result: %" PRId64 "\n", g.from_result);
        printf("created_at: %s\n", g.created_at);
    }
    rt_golden_finish(&g);
    return s;
}

static int golden_show(const struct golden_args *a)
{
    int64_t id = 0;
    int rc = need_rest(a, 1, "a golden ID");
    if (rc || (rc = parse_id(a->rest[0], &id)))
        return rc;
    if (a->output) { /* refused before the store is read, in every command's words */
        rt_status s = rt_output_file_check("-o", a->output);
        if (!rt_ok(&s))
            return cli_fail(s);
    }
    return cli_fail(with_store(a, RT_STORE_READ_ONLY, show_fn, &id));
}

struct change_ctx {
    int64_t id;
    bool remove;
    enum rt_golden_status status;
};

static rt_status change_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    (void)a;
    const struct change_ctx *c = ctx;
    if (c->remove)
        return rt_store_golden_remove(store, c->id);
    return rt_store_golden_mark(store, c->id, c->status);
}

static int golden_rm(const struct golden_args *a)
{
    struct change_ctx c = {.remove = true};
    int rc = need_rest(a, 1, "a golden ID");
    if (rc || (rc = parse_id(a->rest[0], &c.id)))
        return rc;
    rc = cli_fail(with_store(a, RT_STORE_READ_WRITE, change_fn, &c));
    if (!rc)
        printf("removed golden %" PRId64 "\n", c.id);
    return rc;
}

static int golden_mark(const struct golden_args *a)
{
    struct change_ctx c = {0};
    int rc = need_rest(a, 2, "ID accepted|known-bad");
    if (rc || (rc = parse_id(a->rest[0], &c.id)))
        return rc;
    if (!rt_golden_status_parse(a->rest[1], &c.status))
        return usage("'%s' is not accepted or known-bad", a->rest[1]);
    rc = cli_fail(with_store(a, RT_STORE_READ_WRITE, change_fn, &c));
    if (!rc)
        printf("golden %" PRId64 " is %s\n", c.id, rt_golden_status_name(c.status));
    return rc;
}

static rt_status export_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    struct rt_store_io_counts *counts = ctx;
    return rt_store_export_goldens(store, a->rest[0], counts);
}

static rt_status import_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    struct rt_store_io_counts *counts = ctx;
    return rt_store_import_goldens(store, a->rest[0], counts);
}

static int golden_export(const struct golden_args *a)
{
    struct rt_store_io_counts counts;
    int rc = need_rest(a, 1, "a directory");
    if (rc || (rc = cli_fail(with_store(a, RT_STORE_READ_ONLY, export_fn, &counts))))
        return rc;
    printf("exported %zu goldens to %s\n", counts.written, a->rest[0]);
    return 0;
}

static int golden_import(const struct golden_args *a)
{
    struct rt_store_io_counts counts;
    int rc = need_rest(a, 1, "a directory");
    if (rc || (rc = cli_fail(with_store(a, RT_STORE_CREATE, import_fn, &counts))))
        return rc;
    printf("imported %zu new goldens (%zu already present)\n", counts.written, counts.existing);
    return 0;
}

static rt_status expect_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    return rt_store_expectation_set(store, a->trace, a->device,
                                    *(enum rt_expect_kind *)ctx, a->note);
}

static int golden_expect(const struct golden_args *a)
{
    enum rt_expect_kind kind = RT_EXPECT_NONE;
    int rc = need_rest(a, 1, "skip|flaky|crash|hang|none");
    if (rc)
        return rc;
    if (!a->trace || !*a->trace)
        return usage("%s", "expect needs --trace NAME");
    if (!rt_expect_kind_parse(a->rest[0], &kind))
        return usage("'%s' is not skip, flaky, crash, hang or none", a->rest[0]);
    rc = cli_fail(with_store(a, RT_STORE_CREATE, expect_fn, &kind));
    if (!rc)
        printf("%s on %s: %s\n", a->trace, a->device && *a->device ? a->device : "any device",
               rt_expect_kind_name(kind));
    return rc;
}

static rt_status gc_fn(struct rt_store *store, const struct golden_args *a, void *ctx)
{
    return rt_store_gc(store, a->keep_runs, 0, ctx);
}

static int golden_gc(const struct golden_args *a)
{
    int rc = need_rest(a, 0, "nothing");
    if (rc)
        return rc;
    if (!a->keep_runs)
        return usage("%s", "gc needs --keep-runs DAYS");
    struct rt_store_gc_counts c;
    if ((rc = cli_fail(with_store(a, RT_STORE_READ_WRITE, gc_fn, &c))))
        return rc;
    printf("removed %" PRIu64 " runs older than %u days, %" PRIu64 " results and %" PRIu64
           " images (%.1f MiB of PNGs); %.1f MiB of the store is now free for new rows"
           " (goldens kept)\n",
           c.runs, a->keep_runs, c.results, c.images, (double)c.image_bytes / 1048576.0,
           (double)c.free_bytes / 1048576.0);
    return 0;
}

static const struct {
    const char *name;
    int (*run)(const struct golden_args *a);
} actions[] = {
    {"add", golden_add},       {"list", golden_list},     {"show", golden_show},
    {"rm", golden_rm},         {"mark", golden_mark},     {"export", golden_export},
    {"import", golden_import}, {"expect", golden_expect}, {"gc", golden_gc},
};

int cmd_golden_run(int argc, char **argv)
{
    if (argc < 2)
        return usage("%s", "missing action (add, list, show, rm, mark, export, import, expect, gc)");
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        if (strcmp(argv[1], actions[i].name))
            continue;
        struct golden_args a;
        int rc = parse_args(argc - 1, argv + 1, &a);
        rc = rc ? cli_exit_code(rc) : actions[i].run(&a);
        free(a.rest);
        return rc;
    }
    return usage("unknown action '%s'", argv[1]);
}
