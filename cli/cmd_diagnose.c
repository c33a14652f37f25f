/*
 * cli/cmd_diagnose.c — `retrace diagnose TRACE --frame F --against-...`: the
 * first draw of frame F whose output diverges between this replay and a
 * reference (diagnose/diagnose.h; docs/FORMATS.md 7.3).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "devices.h"
#include "diagnose.h"
#include "trace.h"

enum { OPT_FRAME = 1, OPT_DEVICE, OPT_CONFIG, OPT_AGAINST_DEVICE, OPT_AGAINST_CONFIG, OPT_AGAINST_ICD, OPT_OUT,
       OPT_PROBES, OPT_JSON, OPT_EXACT, OPT_TOLERANT };
static const struct cli_option options[] = {
    {"frame", 0, CLI_VALUE, OPT_FRAME, "F", "the frame to diagnose (from 1)"},
    {"device", 0, CLI_VALUE, OPT_DEVICE, "INDEX|NAME", "the replay under test's device (replay --device)"},
    {"config", 0, CLI_VALUE, OPT_CONFIG, "'KEY=VALUE;...'", "the replay under test's configuration (keys as "
     "--against-config)"},
    {"against-device", 0, CLI_VALUE, OPT_AGAINST_DEVICE, "INDEX|NAME",
     "the reference: another device (default llvmpipe, lavapipe)"},
    {"against-config", 0, CLI_VALUE, OPT_AGAINST_CONFIG, "'KEY=VALUE;...'",
     "the reference: another configuration, keys workarounds=A,B delays=EVENT=DUR,... seed=N skip-draws=F:N[-M]"},
    {"against-icd", 0, CLI_VALUE, OPT_AGAINST_ICD, "FILE.json", "the reference: another build of the driver "
     "(its ICD manifest, as VK_ICD_FILENAMES)"},
    {"out", 0, CLI_VALUE, OPT_OUT, "DIR", "where dumps, images and disassembly go (default diagnose-F)"},
    {"probes", 0, CLI_VALUE, OPT_PROBES, "N", "draws compared per round (default 16)"},
    {"json", 0, CLI_FLAG, OPT_JSON, NULL, "the answer as one JSON object (docs/FORMATS.md 7.3)"},
    {"exact", 0, CLI_FLAG, OPT_EXACT, NULL, "any pixel that differs diverges (the default against --against-config)"},
    {"tolerant", 0, CLI_FLAG, OPT_TOLERANT, NULL, "judge by SSIM and delta E, widened by noise (the default "
     "against another device or driver)"},
    {0}};

void cmd_diagnose_usage(FILE *out)
{
    fprintf(out, "usage: retrace diagnose TRACE --frame F [--against-device D | --against-config C | --against-icd "
                 "FILE] [OPTIONS]\n"
                 "  Replays frame F both ways, dumping chosen draws (retrace replay --dump-draws), and finds the\n"
                 "  first draw whose images diverge (against another configuration: any pixel; against\n"
                 "  another device or driver: SSIM, worst tile, delta E, thresholds widened by the noise\n"
                 "  of the agreeing draws before it) in rounds of --probes draws: a frame of n draws\n"
                 "  costs about 2 log(n)/log(16) + 1 replays.\n");
    cli_usage_options(out, options);
    fprintf(out, "exit: 0 no draw diverges, 1 the first divergent draw is printed, 2 usage (also a frame with\n"
                 "no draws of its own), 3 bad input, 4 a side's replay failed (its log is named), 5 internal\n");
}

/* The replay arguments of a configuration 'KEY=VALUE;...', copied into STORE. */
static int add_config(const struct rt_command *self, const char *spec, struct rt_diagnose_side *side, char *store,
                      size_t size)
{
    if (strlen(spec) >= size)
        return cli_usage_error(self, "configuration '%s' is too long", spec);
    strcpy(store, spec);
    for (char *item = strtok(store, ";"); item; item = strtok(NULL, ";")) {
        char *eq = strchr(item, '=');
        if (!eq)
            return cli_usage_error(self, "configuration item '%s' is not KEY=VALUE", item);
        *eq = '\0';
        const char *key = item, *value = eq + 1;
        static const char *const keys[] = {"workarounds", "seed", "skip-draws"};
        bool delays = !strcmp(key, "delays"), known = delays;
        for (size_t i = 0; i < 3; i++)
            known = known || !strcmp(key, keys[i]);
        if (!known)
            return cli_usage_error(self, "configuration key '%s': want workarounds, delays, seed or skip-draws", key);
        for (char *v = delays ? strtok_r((char *)value, ",", &eq) : (char *)value; v;
             v = delays ? strtok_r(NULL, ",", &eq) : NULL) {
            if (side->arg_count + 2 > RT_DIAGNOSE_MAX_ARGS)
                return cli_usage_error(self, "configuration '%s' has too many items", spec);
            side->args[side->arg_count++] = delays ? "--delay" : !strcmp(key, "workarounds") ? "--workarounds"
                                            : !strcmp(key, "seed") ? "--seed" : "--skip-draws";
            side->args[side->arg_count++] = v;
        }
    }
    return 0;
}

struct diagnose_args {
    struct rt_diagnose_options o;
    char test_config[4096], reference_config[4096], out[PATH_MAX], exe[PATH_MAX];
    bool json;
    int references;
};

static int parse_option(struct cli_args *p, int id, struct diagnose_args *a)
{
    const struct rt_command *self = p->cmd;
    struct rt_diagnose_options *o = &a->o;
    switch (id) {
    case OPT_FRAME: return cli_args_u64(p, 1, UINT64_MAX, &o->frame);
    case OPT_DEVICE:
        o->test.args[o->test.arg_count++] = "--device";
        o->test.args[o->test.arg_count++] = p->value;
        return 0;
    case OPT_CONFIG: return add_config(self, p->value, &o->test, a->test_config, sizeof a->test_config);
    case OPT_AGAINST_DEVICE:
        o->reference.args[o->reference.arg_count++] = "--device";
        o->reference.args[o->reference.arg_count++] = p->value;
        break;
    case OPT_AGAINST_CONFIG: {
        int rc = add_config(self, p->value, &o->reference, a->reference_config, sizeof a->reference_config);
        if (rc)
            return rc;
        break;
    }
    case OPT_AGAINST_ICD: o->reference.icd = p->value; break;
    case OPT_OUT: o->out_dir = p->value; return 0;
    case OPT_PROBES: return cli_args_u32(p, 2, 64, &o->probes);
    case OPT_JSON: a->json = true; return 0;
    case OPT_EXACT: o->match = RT_DIAGNOSE_MATCH_EXACT; return 0;
    case OPT_TOLERANT: o->match = RT_DIAGNOSE_MATCH_TOLERANT; return 0;
    default: return 0;
    }
    static const char *const kinds[] = {"device", "config", "icd"};
    o->reference_kind = kinds[id - OPT_AGAINST_DEVICE];
    o->reference_value = p->value;
    a->references++;
    return 0;
}

static int parse_args(int argc, char **argv, struct diagnose_args *a)
{
    const struct rt_command *self = cli_find_command("diagnose");
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, 0);
    for (int id, rc; (id = cli_args_next(&p)) != CLI_ARGS_END;) {
        if (id == CLI_ARGS_STOP)
            return p.result;
        if (id == CLI_ARGS_POSITIONAL && a->o.trace)
            return cli_usage_error(self, "expected one TRACE, got '%s' too", p.value);
        if (id == CLI_ARGS_POSITIONAL)
            a->o.trace = p.value;
        else if ((rc = parse_option(&p, id, a)))
            return rc;
    }
    if (!a->o.trace || !a->o.frame)
        return cli_usage_error(self, "expected TRACE and --frame F");
    if (a->references > 1)
        return cli_usage_error(self, "name one reference: --against-device, --against-config or --against-icd");
    for (uint32_t i = 0; a->references && !strcmp(a->o.reference_kind, "config") && i + 1 < a->o.test.arg_count; i++)
        if (!strcmp(a->o.test.args[i], "--device")) { /* another configuration on the same device */
            a->o.reference.args[a->o.reference.arg_count++] = "--device";
            a->o.reference.args[a->o.reference.arg_count++] = a->o.test.args[i + 1];
        }
    if (!a->references) { /* lavapipe, the reference rasteriser every Linux machine has */
        a->o.reference.args[a->o.reference.arg_count++] = "--device";
        a->o.reference.args[a->o.reference.arg_count++] = "llvmpipe";
        a->o.reference_kind = "device";
        a->o.reference_value = "llvmpipe";
    }
    if (!a->o.out_dir) {
        snprintf(a->out, sizeof a->out, "diagnose-%llu", (unsigned long long)a->o.frame);
        a->o.out_dir = a->out;
    }
    ssize_t n = readlink("/proc/self/exe", a->exe, sizeof a->exe - 1);
    a->exe[n > 0 ? n : 0] = '\0';
    a->o.retrace = n > 0 ? a->exe : "retrace";
    return 0;
}

/* The index of the device a replay of H picks with --device WANT (NULL: as
 * replay chooses, rt_replay_device_chosen), or UINT32_MAX where none matches. */
static uint32_t replay_device_index(const struct rt_replay_device *list, uint32_t count, const char *want,
                                    const struct rt_trace_header *h)
{
    const uint32_t *vendor = h->has_device ? &h->device.vendor_id : NULL;
    for (uint32_t i = 0; i < count; i++)
        if (rt_replay_device_chosen(want, i, list[i].name, list[i].vendor_id, vendor))
            return i;
    return want || !count ? UINT32_MAX : 0;
}

/* With no reference named, the reference is lavapipe; where the replay under
 * test lands on lavapipe too, only the configuration differs, and one device
 * and driver replay deterministically: judged pixel for pixel, as against
 * --against-config (review R4: a draw changing fewer pixels than the SSIM
 * gate was 'no draw diverges'). */
static void judge_same_device_exactly(struct diagnose_args *a, const struct rt_trace_header *h)
{
    if (a->references || a->o.match != RT_DIAGNOSE_MATCH_AUTO)
        return;
    const char *want = NULL;
    for (uint32_t i = 0; i + 1 < a->o.test.arg_count; i++)
        if (!strcmp(a->o.test.args[i], "--device"))
            want = a->o.test.args[i + 1];
    struct rt_replay_device *list = NULL;
    uint32_t count = 0;
    rt_status listed = rt_replay_list_devices(&list, &count);
    if (!rt_ok(&listed)) {
        rt_status_free(&listed);
        return; /* the replays will say what is wrong */
    }
    uint32_t test = replay_device_index(list, count, want, h);
    uint32_t reference = replay_device_index(list, count, "llvmpipe", h);
    if (test != UINT32_MAX && test == reference)
        a->o.match = RT_DIAGNOSE_MATCH_EXACT;
    free(list);
}

/* What would make a side's replay fail at once is said before any replay:
 * a --device or --against-device naming no device, an ICD file that is not there. */
static rt_status check_sides(const struct rt_diagnose_options *o)
{
    const struct rt_diagnose_side *sides[] = {&o->test, &o->reference};
    for (size_t k = 0; k < 2; k++)
        for (uint32_t i = 0; i + 1 < sides[k]->arg_count; i++)
            if (!strcmp(sides[k]->args[i], "--device"))
                RT_TRY(rt_status_wrap(cli_check_device(sides[k]->args[i + 1]), "%s",
                                      k ? "the reference (--against-device, or lavapipe by default)" : "--device"));
    if (o->reference.icd && access(o->reference.icd, R_OK) != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "--against-icd %s: cannot open: %s", o->reference.icd, strerror(errno));
    return rt_ok_status();
}

int cmd_diagnose_run(int argc, char **argv)
{
    static struct diagnose_args a; /* the options point into it */
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    a.o.log = stderr;
    struct rt_trace_reader *reader = NULL; /* refused before any replay or folder is made */
    rt_status opened = rt_trace_reader_open(a.o.trace, &reader);
    if (rt_ok(&opened))
        judge_same_device_exactly(&a, rt_trace_reader_header(reader));
    rt_trace_reader_destroy(reader);
    if (!rt_ok(&opened))
        return cli_fail(rt_status_wrap(opened, "%s", a.o.trace));
    rt_status ready = check_sides(&a.o);
    if (!rt_ok(&ready))
        return cli_fail(ready);
    struct rt_diagnose_result res;
    rt_status s = rt_diagnose_run(&a.o, &res);
    if (!rt_ok(&s)) {
        rt_diagnose_result_finish(&res);
        return cli_fail(s);
    }
    fprintf(stderr, "diagnose: %u replays of frame %llu for %llu draws\n", res.replays,
            (unsigned long long)a.o.frame, (unsigned long long)res.draws);
    if (a.json) {
        char *text = rt_diagnose_json(&a.o, &res);
        if (!text) {
            rt_diagnose_result_finish(&res);
            return cli_fail(rt_errorf(RT_ERR_INTERNAL, "out of memory"));
        }
        puts(text);
        free(text);
    } else {
        rt_diagnose_print(stdout, &a.o, &res);
    }
    rc = res.diverged ? RT_ERR_FAILED : 0;
    rt_diagnose_result_finish(&res);
    return rc;
}
