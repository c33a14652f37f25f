/* cli/cmd_capture.c — `retrace capture`: run a program under the capture layer. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "capture_child.h"
#include "cli.h"
#include "framelist.h"
#include "settings.h"
#include "trace.h"

#define LAYER_NAME "VK_LAYER_RETRACE_capture"
#define LAYER_MANIFEST "VkLayer_RETRACE_capture.json"

void cmd_capture_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace capture [OPTIONS] -- PROGRAM [ARGS...]\n"
            "Runs PROGRAM with the capture layer enabled and records its Vulkan calls.\n"
            "  -o, --output FILE           trace path (default: PROGRAM.rtrace)\n"
            "  --compression zstd|none     block compression (default zstd)\n"
            "  --memory-tracking page-guard|full\n"
            "                              how mapped-memory writes are found (default page-guard)\n"
            "  --frame-delimiter present|submit\n"
            "                              what ends a frame (default present; submit for\n"
            "                              programs without a swapchain)\n"
            "  --screenshots DIR           save capture-time screenshots as DIR/frame_NNNNNN.png\n"
            "  --screenshot-frames LIST    which frames, 1-based, e.g. 1,10,100-120 (default 1)\n"            "  --json                      the summary (or the error) as one JSON object, the\n"
            "                              last line of stdout\n"
            "PROGRAM runs in a process group of its own; SIGINT, SIGTERM, SIGHUP and SIGQUIT\n"
            "sent to retrace go to that group (the third as SIGKILL), then retrace finishes\n"
            "the trace, prints it and ends by the same signal. A NAME.part the program left\n"
            "(SIGKILL, out of memory) is finished by retrace, which says so.\n"
            "Exit status: 0 when PROGRAM exited 0; 6 when it crashed, was killed or exited\n"
            "non-zero (the trace is kept and printed); 2 for a bad option or an output\n"
            "directory that does not exist or cannot be written; 3 when no trace was written.\n"
            "The layer is found through RETRACE_LAYER_DIR, else next to this build, else installed.\n"
            "The same settings work as RETRACE_* variables when the layer is enabled by hand\n"
            "(VK_INSTANCE_LAYERS=" LAYER_NAME ", with VK_ADD_LAYER_PATH pointing at its manifest).\n");
}

/* Flag values, looked up by the layer's own settings parser for validation. */
static const char *flag_env[12];

static const char *flag_getenv(const char *name)
{
    for (size_t i = 0; i + 1 < sizeof flag_env / sizeof flag_env[0] && flag_env[i]; i += 2)
        if (!strcmp(flag_env[i], name))
            return flag_env[i + 1];
    return NULL;
}

static void set_flag(const char *var, const char *value)
{
    size_t i = 0;
    while (flag_env[i] && strcmp(flag_env[i], var))
        i += 2;
    flag_env[i] = var;
    flag_env[i + 1] = value;
}

/* Each flag, the variable it sets, and the values it takes (NULL: any). */
static const struct capture_flag {
    struct cli_option option;
    const char *var;
    const char *const *choices;
} flags[] = {
    {{"output", 'o', CLI_VALUE, 1}, "RETRACE_OUTPUT", NULL},
    {{"compression", 0, CLI_VALUE, 2}, "RETRACE_COMPRESSION", (const char *const[]){"zstd", "none", NULL}},
    {{"memory-tracking", 0, CLI_VALUE, 3}, "RETRACE_MEMORY_TRACKING",
     (const char *const[]){"page-guard", "full", NULL}},
    {{"frame-delimiter", 0, CLI_VALUE, 4}, "RETRACE_FRAME_DELIMITER",
     (const char *const[]){"present", "submit", NULL}},
    {{"screenshots", 0, CLI_VALUE, 5}, "RETRACE_SCREENSHOTS", NULL},
    {{"screenshot-frames", 0, CLI_VALUE, 6}, "RETRACE_SCREENSHOT_FRAMES", NULL},
    {{"json", 0, CLI_FLAG, 7}, NULL, NULL}, /* main() saw it: cli_json_errors() */
};

#define FLAG_COUNT (sizeof flags / sizeof flags[0])

/* A flag's value, checked here so the error names the flag, not the variable. */
static int check_flag(struct cli_args *p, const struct capture_flag *f)
{
    int index;
    if (f->choices)
        return cli_args_choice(p, f->choices, &index);
    if (strcmp(f->var, "RETRACE_SCREENSHOT_FRAMES"))
        return 0;
    struct rt_frame_list list;
    rt_status s = rt_frame_list_parse(p->value, &list);
    if (!rt_ok(&s))
        return cli_usage_error(p->cmd, "%s: %s", p->option, s.msg);
    rt_frame_list_finish(&list);
    return 0;
}

/* The settings parser names the variable ("RETRACE_SCREENSHOTS: ..."); on
 * the command line the user gave a flag, so the message names the flag. */
static int settings_error(const struct rt_command *self, const char *msg)
{
    for (size_t i = 0; i < FLAG_COUNT; i++) {
        size_t n = flags[i].var ? strlen(flags[i].var) : 0;
        if (n && !strncmp(msg, flags[i].var, n) && msg[n] == ':')
            return cli_usage_error(self, "--%s%s", flags[i].option.name, msg + n);
    }
    return cli_usage_error(self, "%s", msg);
}

/* Options come before PROGRAM (its own flags are its own); *program_out is
 * PROGRAM's index in argv. 0, CLI_HELP_SHOWN or an exit code. */
static int parse_flags(int argc, char **argv, const struct rt_command *self, int *program_out)
{
    struct cli_option options[FLAG_COUNT + 1] = {{0}};
    for (size_t i = 0; i < FLAG_COUNT; i++)
        options[i] = flags[i].option;
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, options, CLI_ARGS_STOP_AT_POSITIONAL);
    int id;
    bool json = false;
    while ((id = cli_args_next(&p)) > 0) {
        const struct capture_flag *f = &flags[id - 1];
        json |= !f->var;
        if (!f->var)
            continue;
        int rc = check_flag(&p, f);
        if (rc)
            return rc;
        set_flag(f->var, p.value);
    }
    if (id == CLI_ARGS_STOP)
        return p.result;
    if (id != CLI_ARGS_POSITIONAL)
        return cli_usage_error(self, "no program to run (put it after --)");
    *program_out = p.next - 1;
    /* main() took a --json among PROGRAM's own arguments for ours; it is not. */
    cli_set_json_errors(json);
    return 0;
}

/* RETRACE_LAYER_DIR, else the layer manifest of this binary's build tree,
 * else the installed one. */
static rt_status find_layer_dir(char *out, size_t size)
{
    const char *dir = getenv("RETRACE_LAYER_DIR");
    if (dir && *dir) {
        snprintf(out, size, "%s", dir);
        return rt_ok_status();
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char candidate[PATH_MAX + 64];
        snprintf(candidate, sizeof candidate, "%s/../capture", dirname(exe));
        char manifest[PATH_MAX + 128];
        snprintf(manifest, sizeof manifest, "%s/" LAYER_MANIFEST, candidate);
        if (access(manifest, R_OK) == 0 && realpath(candidate, out) && strlen(out) < size)
            return rt_ok_status();
    }
    snprintf(out, size, "%s", RT_LAYER_INSTALL_DIR);
    char manifest[PATH_MAX + 64];
    snprintf(manifest, sizeof manifest, "%s/" LAYER_MANIFEST, out);
    if (access(manifest, R_OK) != 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot find the capture layer manifest %s", manifest);
    return rt_ok_status();
}

/* The program may change directory: give the layer an absolute, existing
 * screenshot directory. */
/* Creating a file is the only true test (root passes access(), /proc and
 * read-only mounts do not take files). errno says why when false. */
static bool takes_files(const char *dir)
{
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.retrace-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0)
        return false;
    close(fd);
    unlink(probe);
    return true;
}

static rt_status prepare_screenshot_dir(void)
{
    const char *dir = flag_getenv("RETRACE_SCREENSHOTS");
    if (!dir)
        return rt_ok_status();
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_USAGE, "cannot create %s: %s", dir, strerror(errno));
    static char absolute[PATH_MAX];
    if (!realpath(dir, absolute))
        return rt_errorf(RT_ERR_USAGE, "cannot resolve %s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(absolute, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "--screenshots: %s is not a directory", dir);
    if (!takes_files(absolute))
        return rt_errorf(RT_ERR_USAGE, "--screenshots: cannot write into %s: %s", dir, strerror(errno));
    set_flag("RETRACE_SCREENSHOTS", absolute);
    return rt_ok_status();
}

static rt_status export_environment(const struct rt_capture_settings *settings, const char *layer_dir)
{
    char value[PATH_MAX * 2];
    const char *old = getenv("VK_ADD_LAYER_PATH");
    snprintf(value, sizeof value, "%s%s%s", layer_dir, old && *old ? ":" : "", old ? old : "");
    setenv("VK_ADD_LAYER_PATH", value, 1);
    old = getenv("VK_INSTANCE_LAYERS");
    snprintf(value, sizeof value, LAYER_NAME "%s%s", old && *old ? ":" : "", old ? old : "");
    setenv("VK_INSTANCE_LAYERS", value, 1);
    for (size_t i = 0; flag_env[i]; i += 2)
        setenv(flag_env[i], flag_env[i + 1], 1);
    /* The layer writes where we will read, whatever directory the program uses. */
    setenv("RETRACE_OUTPUT", settings->output, 1);
    return rt_ok_status();
}

static rt_status absolute_output(const char *requested, const char *program, char *out, size_t size)
{
    char name[PATH_MAX];
    if (requested) {
        snprintf(name, sizeof name, "%s", requested);
    } else {
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", program);
        snprintf(name, sizeof name, "%s.rtrace", basename(copy));
    }
    if (name[0] == '/') {
        snprintf(out, size, "%s", name);
        return rt_ok_status();
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return rt_errorf(RT_ERR_INTERNAL, "cannot read the current directory");
    if ((size_t)snprintf(out, size, "%s/%s", cwd, name) >= size)
        return rt_errorf(RT_ERR_USAGE, "output path too long");
    return rt_ok_status();
}

/* The trace's directory exists and takes new files, so a program that runs
 * for an hour does not end with "cannot create". */
static rt_status check_output_dir(const char *output)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", output);
    const char *dir = dirname(copy);
    struct stat st;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "-o: %s is a directory; name the trace file", output);
    if (stat(dir, &st) != 0)
        return rt_errorf(RT_ERR_USAGE, "-o: cannot write %s: directory %s: %s", output, dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "-o: cannot write %s: %s is not a directory", output, dir);
    if (!takes_files(dir))
        return rt_errorf(RT_ERR_USAGE, "-o: cannot write %s: directory %s: %s", output, dir,
                         strerror(errno));
    return rt_ok_status();
}

/* How the program ended, for --json: {"exit": N} or {"signal": N, "name": "..."}. */
static void add_program_status(cJSON *o, int status)
{
    cJSON *program = cJSON_AddObjectToObject(o, "program");
    if (WIFSIGNALED(status)) {
        cJSON_AddNumberToObject(program, "signal", WTERMSIG(status));
        cJSON_AddStringToObject(program, "name", strsignal(WTERMSIG(status)));
    } else {
        cJSON_AddNumberToObject(program, "exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* The traces the program's other processes wrote (STEM-PID.rtrace). */
#define MAX_SIBLINGS 16
static struct siblings {
    char paths[MAX_SIBLINGS][PATH_MAX];
    int count;
} siblings;

static void print_json_summary(const char *path, const struct rt_trace_progress *p, long long bytes,
                               int status)
{
    cJSON *o = cJSON_CreateObject();
    add_program_status(o, status);
    cJSON_AddStringToObject(o, "trace", path);
    cJSON *others = cJSON_AddArrayToObject(o, "other_traces");
    for (int i = 0; others && i < siblings.count; i++)
        cJSON_AddItemToArray(others, cJSON_CreateString(siblings.paths[i]));
    cJSON_AddNumberToObject(o, "frames", (double)p->frames);
    cJSON_AddNumberToObject(o, "calls", (double)p->calls);
    cJSON_AddNumberToObject(o, "bytes", (double)bytes);
    cJSON_AddNumberToObject(o, "raw_bytes", (double)p->raw_bytes);
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        printf("%s\n", text);
    cJSON_free(text);
    cJSON_Delete(o);
}

static rt_status summarise(const char *path, int status)
{
    struct rt_trace_reader *reader;
    RT_TRY(rt_status_wrap(rt_trace_reader_open(path, &reader), "%s", path));
    struct rt_trace_packet packet;
    rt_status s;
    do {
        s = rt_trace_reader_next(reader, &packet);
    } while (rt_ok(&s) && packet.type != RT_TRACE_PACKET_END);
    struct rt_trace_progress p;
    rt_trace_reader_progress(reader, &p);
    rt_trace_reader_destroy(reader);
    struct stat st = {0};
    stat(path, &st);
    if (cli_json_errors()) /* --json: one object, the last line of stdout */
        print_json_summary(path, &p, (long long)st.st_size, status);
    else
        printf("trace: %s\nframes: %llu  calls: %llu  bytes: %lld (raw %llu)\n", path,
               (unsigned long long)p.frames, (unsigned long long)p.calls, (long long)st.st_size,
               (unsigned long long)p.raw_bytes);
    if (!rt_ok(&s))
        fprintf(stderr, "retrace: warning: the trace is good up to byte %llu: %s\n",
                (unsigned long long)p.good_bytes, s.msg);
    return rt_ok_status();
}

/* True when the program ended badly; says how. */
static bool report_program_status(const char *program, int status)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fprintf(stderr, "retrace: %s exited with status %d\n", program, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        fprintf(stderr, "retrace: %s was killed by signal %d (%s)\n", program, WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    else
        return false;
    return true;
}

/* A .part the program left (SIGKILL, the OOM killer, its own handler calling
 * _exit): finished here, once no process holds it. A process of the
 * program's that outlives it (a launcher's child) is given a few seconds. */
static void finish_leftover(const char *output)
{
    char part[PATH_MAX + 8];
    snprintf(part, sizeof part, "%s.part", output);
    if (access(part, F_OK) != 0)
        return;
    struct rt_trace_progress p;
    rt_status s;
    for (int tries = 0;; tries++) {
        s = rt_trace_finish_part(output, &p);
        if (rt_ok(&s) || !strstr(s.msg, "still being written") || tries == 100)
            break;
        usleep(100 * 1000);
    }
    if (!rt_ok(&s)) {
        fprintf(stderr, "retrace: warning: %s\n", s.msg);
        return;
    }
    fprintf(stderr, "retrace: the program left %s unfinished; retrace finished it: %llu whole "
            "frames, %llu calls kept\n", part, (unsigned long long)p.frames,
            (unsigned long long)p.calls);
}

/* STEM-PID.rtrace, the name a second process of the program (a launcher's
 * child) writes under (capture/record.c claim_output). */
static bool is_sibling(const char *name, const char *stem, size_t stem_len, const char *suffix)
{
    if (strncmp(name, stem, stem_len) || name[stem_len] != '-')
        return false;
    const char *p = name + stem_len + 1;
    size_t digits = strspn(p, "0123456789");
    return digits > 0 && !strcmp(p + digits, suffix);
}

/* The program's other processes: their leftover .part files are finished as
 * the main one is, and every trace they wrote during this run is named. */
static void add_sibling(const char *path)
{
    if (siblings.count < MAX_SIBLINGS && access(path, F_OK) == 0)
        snprintf(siblings.paths[siblings.count++], PATH_MAX, "%s", path);
}

static void report_siblings(const char *output, time_t started)
{
    char copy[PATH_MAX], dir_copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", output);
    snprintf(dir_copy, sizeof dir_copy, "%s", output);
    const char *base = basename(copy), *dir = dirname(dir_copy);
    size_t stem_len = strlen(base);
    if (stem_len > 7 && !strcmp(base + stem_len - 7, ".rtrace"))
        stem_len -= 7;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || st.st_mtime < started)
            continue;
        if (is_sibling(e->d_name, base, stem_len, ".rtrace.part")) {
            path[strlen(path) - 5] = '\0';
            finish_leftover(path);
            add_sibling(path);
        } else if (is_sibling(e->d_name, base, stem_len, ".rtrace")) {
            fprintf(stderr, "retrace: another process of the program wrote %s\n", path);
            add_sibling(path);
        }
    }
    if (d)
        closedir(d);
}

/* The exit status: the program's failure is the capture's (a nightly job
 * must not count a crash as a good capture); the trace is kept either way. */
static int finish_run(const char *program, const char *output, const struct capture_child *child,
                      time_t started)
{
    bool failed = report_program_status(program, child->status);
    finish_leftover(output);
    report_siblings(output, started);
    rt_status s = rt_ok_status();
    if (access(output, F_OK) != 0)
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: it never created a Vulkan instance, "
                      "or could not load the capture layer", program);
    else
        s = summarise(output, child->status);
    for (int i = 0; !cli_json_errors() && i < siblings.count; i++) { /* --json: other_traces */
        rt_status other = summarise(siblings.paths[i], child->status);
        if (!rt_ok(&other))
            fprintf(stderr, "retrace: warning: %s\n", other.msg);
    }
    if (child->stop_signal) {
        fprintf(stderr, "retrace: stopped by signal %d (%s), passed on to %s\n", child->stop_signal,
                strsignal(child->stop_signal), program);
        capture_child_end_like(child->stop_signal);
    }
    capture_child_restore_signals();
    if (!rt_ok(&s) && !failed)
        return cli_fail(s);
    if (!rt_ok(&s))
        fprintf(stderr, "retrace: error: %s\n", s.msg);
    if (failed)
        fprintf(stderr, "retrace: error: the program failed (exit %d)%s\n", CLI_EXIT_PROGRAM_FAILED,
                rt_ok(&s) ? "; the trace is kept" : "");
    return failed ? CLI_EXIT_PROGRAM_FAILED : 0;
}

int cmd_capture_run(int argc, char **argv)
{
    const struct rt_command *self = cli_find_command("capture");
    memset(flag_env, 0, sizeof flag_env);
    int program_index = 0;
    int rc = parse_flags(argc, argv, self, &program_index);
    if (rc)
        return cli_exit_code(rc);
    char **program = argv + program_index;
    struct rt_capture_settings settings;
    rt_status s = rt_capture_settings_load(flag_getenv, "app", &settings);
    if (!rt_ok(&s))
        return settings_error(self, s.msg);
    char layer_dir[PATH_MAX];
    s = absolute_output(flag_getenv("RETRACE_OUTPUT"), program[0], settings.output,
                        sizeof settings.output);
    if (rt_ok(&s))
        s = check_output_dir(settings.output);
    if (rt_ok(&s))
        s = prepare_screenshot_dir();
    if (rt_ok(&s))
        s = find_layer_dir(layer_dir, sizeof layer_dir);
    if (rt_ok(&s))
        s = export_environment(&settings, layer_dir);
    rt_capture_settings_finish(&settings);
    if (!rt_ok(&s))
        return cli_fail(s);
    /* Never report a stale trace as this run's (nor make the layer think
     * another process is writing it). */
    char part[PATH_MAX + 8];
    snprintf(part, sizeof part, "%s.part", settings.output);
    unlink(settings.output);
    unlink(part);
    struct capture_child child;
    time_t started = time(NULL);
    s = capture_child_run(program, &child);
    if (!rt_ok(&s))
        return cli_fail(s);
    if (child.exec_errno) {
        capture_child_restore_signals();
        return cli_fail(rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: cannot run it: %s", program[0],
                                  strerror(child.exec_errno)));
    }
    return finish_run(program[0], settings.output, &child, started);
}
