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
#include "capture_loader.h"
#include "capture_traces.h"
#include "capture_trim.h"
#include "frames_missed.h"
#include "cli.h"
#include "file.h"
#include "datadir.h"
#include "framelist.h"
#include "settings.h"
#include "trace.h"

/* How long the program may run again, with the loader's debug output, when
 * it wrote no trace (capture_loader.h). */
#define LOADER_PROBE_SECONDS 10



/* Each flag and the setting it sets (capture/settings.h names the variable
 * and its values); --json is main()'s, --trim-frames this file's. */
#define JSON_FLAG (-1)
#define TRIM_FLAG (-2)
static const struct capture_flag {
    struct cli_option option;
    int setting;
} flags[] = {
    {{"output", 'o', CLI_VALUE, 1, "FILE", "trace path (default: PROGRAM.rtrace)"}, RT_CAPTURE_SETTING_OUTPUT},
    {{"compression", 0, CLI_VALUE, 2, "zstd|none", "block compression (default zstd)"},
     RT_CAPTURE_SETTING_COMPRESSION},
    {{"memory-tracking", 0, CLI_VALUE, 3, "page-guard|full", "how mapped-memory writes are found (default page-guard)"},
     RT_CAPTURE_SETTING_MEMORY_TRACKING},
    {{"frame-delimiter", 0, CLI_VALUE, 4, "present|submit",
      "what ends a frame (default present; submit for programs without a swapchain)"},
     RT_CAPTURE_SETTING_FRAME_DELIMITER},
    {{"screenshots", 0, CLI_VALUE, 5, "DIR", "save capture-time screenshots as DIR/frame_NNNNNN.png"},
     RT_CAPTURE_SETTING_SCREENSHOTS},
    {{"screenshot-frames", 0, CLI_VALUE, 6, "LIST", "which frames, 1-based, e.g. 1,10,100-120 (default 1)"},
     RT_CAPTURE_SETTING_SCREENSHOT_FRAMES},
    {{"json", 0, CLI_FLAG, 7, NULL, "the summary (or the error) as one JSON object, the last line of stdout"},
     JSON_FLAG}, /* main() saw it: cli_json_errors() */
    {{"trim-frames", 0, CLI_VALUE, 8, "A-B",
      "write only frames A..B (A alone: one frame), as `retrace trim` does: the whole run is captured to "
      "STEM.untrimmed.rtrace beside the trace, trimmed when the program ends (also when it is killed) and removed"},
     TRIM_FLAG},
};

#define FLAG_COUNT (sizeof flags / sizeof flags[0])

/* The flags as the option table cli_args reads (OUT has FLAG_COUNT + 1 entries). */
static const struct cli_option *capture_options(struct cli_option *out)
{
    for (size_t i = 0; i < FLAG_COUNT; i++)
        out[i] = flags[i].option;
    return out;
}

void cmd_capture_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace capture [OPTIONS] -- PROGRAM [ARGS...]\n"
            "Runs PROGRAM with the capture layer enabled and records its Vulkan calls.\n");
    struct cli_option options[FLAG_COUNT + 1] = {{0}};
    cli_usage_options(out, capture_options(options));
    fprintf(out,
            "PROGRAM runs in a process group of its own; SIGINT, SIGTERM, SIGHUP and SIGQUIT\n"
            "sent to retrace go to that group (the third as SIGKILL), then retrace finishes\n"
            "the trace, prints it and ends by the same signal. A NAME.part the program left\n"
            "(SIGKILL, out of memory) is finished by retrace, which says so.\n"
            "The layer is found through RETRACE_LAYER_DIR, else next to this build, else installed.\n"
            "The same settings work as RETRACE_* variables when the layer is enabled by hand\n"
            "(VK_INSTANCE_LAYERS=" RT_CAPTURE_LAYER_NAME ", with VK_ADD_LAYER_PATH pointing at its manifest).\n");
    static const struct cli_exit exits[] = {
        {RT_OK, "PROGRAM exited 0"},
        {CLI_EXIT_PROGRAM_FAILED, "it crashed, was killed or exited non-zero (the trace is kept and printed)"},
        {RT_ERR_USAGE, "a bad option or an output directory that does not exist or cannot be written"},
        {RT_ERR_BAD_INPUT, "no trace was written"},
        {0, NULL}};
    cli_usage_exits(out, exits);
}

/* The flags' values by setting; the settings decoder reads them over the
 * environment (a RETRACE_* variable the user set still counts). */
static const char *flag_values[RT_CAPTURE_SETTING_COUNT];

static const char *flag_getenv(const char *name)
{
    for (int i = 0; i < RT_CAPTURE_SETTING_COUNT; i++)
        if (!strcmp(rt_capture_setting_info((enum rt_capture_setting)i)->var, name))
            return flag_values[i] ? flag_values[i] : getenv(name);
    return getenv(name);
}

static void encode_setenv(void *ctx, const char *name, const char *value)
{
    (void)ctx;
    setenv(name, value, 1);
}

/* A flag's value, checked here so the error names the flag, not the variable. */
static int check_flag(struct cli_args *p, const struct capture_flag *f)
{
    int index;
    const struct rt_capture_setting_info *info = rt_capture_setting_info(f->setting);
    if (info->choices)
        return cli_args_choice(p, info->choices, &index);
    if (f->setting != RT_CAPTURE_SETTING_SCREENSHOT_FRAMES)
        return 0;
    struct rt_frame_list list;
    rt_status s = rt_frame_list_parse(p->value, &list);
    if (!rt_ok(&s)) {
        int rc = cli_usage_error(p->cmd, "%s: %s", p->option, s.msg);
        rt_status_free(&s);
        return rc;
    }
    rt_frame_list_finish(&list);
    return 0;
}

/* The settings decoder names the variable ("RETRACE_SCREENSHOTS: ..."); when
 * the user gave the flag, the message names the flag. */
static int settings_error(const struct rt_command *self, const char *msg)
{
    for (size_t i = 0; i < FLAG_COUNT; i++) {
        if (flags[i].setting < 0 || !flag_values[flags[i].setting])
            continue;
        const char *var = rt_capture_setting_info(flags[i].setting)->var;
        size_t n = strlen(var);
        if (!strncmp(msg, var, n) && msg[n] == ':')
            return cli_usage_error(self, "--%s%s", flags[i].option.name, msg + n);
    }
    return cli_usage_error(self, "%s", msg);
}

/* Options come before PROGRAM (its own flags are its own); *program_out is
 * PROGRAM's index in argv. 0, CLI_HELP_SHOWN or an exit code. */
static int parse_flags(int argc, char **argv, const struct rt_command *self, int *program_out,
                       struct capture_trim *trim)
{
    struct cli_option options[FLAG_COUNT + 1] = {{0}};
    struct cli_args p;
    cli_args_init(&p, self, argc, argv, capture_options(options), CLI_ARGS_STOP_AT_POSITIONAL);
    int id;
    bool json = false;
    while ((id = cli_args_next(&p)) > 0) {
        const struct capture_flag *f = &flags[id - 1];
        json |= f->setting == JSON_FLAG;
        int rc = 0;
        if (f->setting == TRIM_FLAG)
            rc = capture_trim_parse(self, "--trim-frames", p.value, &trim->first, &trim->last);
        trim->on |= f->setting == TRIM_FLAG;
        if (f->setting < 0 && !rc)
            continue;
        if (!rc)
            rc = check_flag(&p, f);
        if (rc)
            return rc;
        flag_values[f->setting] = p.value;
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
        snprintf(manifest, sizeof manifest, "%s/" RT_CAPTURE_LAYER_MANIFEST, candidate);
        if (access(manifest, R_OK) == 0 && realpath(candidate, out) && strlen(out) < size)
            return rt_ok_status();
    }
    /* installed: share/vulkan/explicit_layer.d beside the binary (under any
     * prefix or DESTDIR), else the configured location */
    if (!rt_datadir_find("vulkan/explicit_layer.d", RT_LAYER_INSTALL_DIR, out, size))
        snprintf(out, size, "%s", RT_LAYER_INSTALL_DIR);
    char manifest[PATH_MAX + 64];
    snprintf(manifest, sizeof manifest, "%s/" RT_CAPTURE_LAYER_MANIFEST, out);
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

static rt_status prepare_screenshot_dir(struct rt_capture_settings *settings)
{
    const char *dir = settings->screenshot_dir;
    if (!dir[0])
        return rt_ok_status();
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_USAGE, "cannot create %s: %s", dir, strerror(errno));
    char absolute[PATH_MAX];
    if (!realpath(dir, absolute))
        return rt_errorf(RT_ERR_USAGE, "cannot resolve %s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(absolute, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_errorf(RT_ERR_USAGE, "--screenshots: %s is not a directory", dir);
    if (!takes_files(absolute))
        return rt_errorf(RT_ERR_USAGE, "--screenshots: cannot write into %s: %s", dir, strerror(errno));
    snprintf(settings->screenshot_dir, sizeof settings->screenshot_dir, "%s", absolute);
    return rt_ok_status();
}

/* The loader's variables, then every setting as the layer will read it. Only
 * the program itself (retrace's child) writes -o; its other processes write
 * NAME-PID.rtrace. */
static struct {
    char *add_layer_path, *instance_layers; /* as they were; NULL: unset */
} loader_environment;

static char *saved(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static void restore(const char *name, char **value)
{
    if (*value)
        setenv(name, *value, 1);
    else
        unsetenv(name);
    free(*value);
    *value = NULL;
}

/* The loader's variables as they were, so that retrace's own replay (the
 * trim of --trim-frames) is not captured too. */
static void restore_environment(void)
{
    restore("VK_ADD_LAYER_PATH", &loader_environment.add_layer_path);
    restore("VK_INSTANCE_LAYERS", &loader_environment.instance_layers);
}

static rt_status export_environment(struct rt_capture_settings *settings, const char *layer_dir)
{
    char value[PATH_MAX * 2];
    loader_environment.add_layer_path = saved("VK_ADD_LAYER_PATH");
    loader_environment.instance_layers = saved("VK_INSTANCE_LAYERS");
    const char *old = getenv("VK_ADD_LAYER_PATH");
    snprintf(value, sizeof value, "%s%s%s", layer_dir, old && *old ? ":" : "", old ? old : "");
    setenv("VK_ADD_LAYER_PATH", value, 1);
    old = getenv("VK_INSTANCE_LAYERS");
    snprintf(value, sizeof value, RT_CAPTURE_LAYER_NAME "%s%s", old && *old ? ":" : "", old ? old : "");
    setenv("VK_INSTANCE_LAYERS", value, 1);
    settings->output_parent = (long)getpid();
    rt_capture_settings_encode(settings, encode_setenv, NULL);
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

/* No trace: the loader, asked again, says whether it loaded the layer. */
static rt_status no_trace(char **program)
{
    struct capture_loader_verdict verdict;
    rt_status s = capture_loader_probe(program, LOADER_PROBE_SECONDS, &verdict);
    if (!rt_ok(&s))
        return s;
    return capture_loader_no_trace(program[0], &verdict);
}

/* Frames past the trace's LAST whose PNGs this run wrote into DIR (modified
 * since STARTED, so an earlier run's files are not taken for this one's): a
 * killed program's layer saves a frame's image before the block holding the
 * frame's calls reaches the file, and the kill loses that block. Appended to
 * *FRAMES (COUNT of them, ROOM allocated); false when out of memory. */
static bool saved_past_end(const char *dir, uint64_t last, time_t started, uint64_t **frames, size_t *count,
                           size_t room)
{
    DIR *d = opendir(dir);
    if (!d)
        return true; /* nothing saved there */
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        uint64_t frame;
        struct stat st;
        if (!rt_capture_screenshot_frame(e->d_name, strlen(e->d_name), &frame) || frame <= last ||
            fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISREG(st.st_mode) || st.st_mtime < started)
            continue;
        if (*count == room) {
            room = room ? room * 2 : 64;
            uint64_t *grown = realloc(*frames, room * sizeof *grown);
            ok = grown != NULL;
            *frames = grown ? grown : *frames;
        }
        if (ok)
            (*frames)[(*count)++] = frame;
    }
    closedir(d);
    return ok;
}

/* Every --screenshot-frames frame the trace has no screenshot of, and why
 * (the exit status stays the program's); the frames saved past its end
 * are named as such and count as saved. */
static void name_missed_screenshots(const struct rt_capture_settings *settings, const struct capture_trace *t,
                                    time_t started)
{
    if (!settings->screenshot_dir[0] || !t->read)
        return;
    size_t count = t->shot_count;
    uint64_t *saved = count ? malloc(count * sizeof *saved) : NULL;
    if (count && !saved)
        return; /* out of memory: nothing said */
    if (count)
        memcpy(saved, t->shots, count * sizeof *saved);
    if (saved_past_end(settings->screenshot_dir, t->progress.frames, started, &saved, &count, count) &&
        count > t->shot_count)
        cli_frames_saved_past("--screenshot-frames", settings->screenshot_dir, saved + t->shot_count,
                              count - t->shot_count, t->progress.frames);
    char past[96];
    snprintf(past, sizeof past, "past the end of the trace (%llu frames)", (unsigned long long)t->progress.frames);
    const char *in = settings->frame_delimiter == RT_FRAME_DELIMITER_SUBMIT
                         ? "it presented no image (with --frame-delimiter submit a frame ends at each submit)"
                         : "its image could not be read (see the warnings above)";
    cli_frames_missed("--screenshot-frames", &settings->screenshot_frames, t->progress.frames, saved, count, in,
                      past);
    free(saved);
}

/* 126 and 127 are how a shell or env says the command could not be run
 * (found but not executable, not found): with no trace written, that is
 * the cause, and asking the loader again would only run it again. */
static bool could_not_run(int status)
{
    return WIFEXITED(status) && (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127);
}

static rt_status summarise(char **program, const struct rt_capture_settings *settings, int status, time_t started,
                           struct capture_trim *trim)
{
    static struct capture_traces traces; /* large */
    capture_traces_collect(settings->output, started, &traces);
    if (!traces.main_exists && traces.count == 0 && could_not_run(status))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: it could not be run (exit %d: %s)", program[0],
                         WEXITSTATUS(status), WEXITSTATUS(status) == 127 ? "a command it runs was not found"
                                                                         : "a command it runs is not executable");
    if (!traces.main_exists && traces.count == 0)
        return no_trace(program);
    rt_status trimmed = rt_ok_status();
    if (trim->on && traces.main_exists) {
        restore_environment();
        trimmed = capture_trim_finish(trim, &traces);
        capture_trim_remove_temp(trim);
        if (!rt_ok(&trimmed)) /* the run is summarised as having written no trace */
            capture_traces_reread_main(&traces, trim->final);
    }
    name_missed_screenshots(settings, &traces.main, started);
    capture_traces_print(&traces, status, cli_json_errors());
    rt_status s = rt_ok_status();
    if (!traces.main_exists)
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace of its own, and none of its other "
                      "processes' traces could be read", program[0]);
    else if (!traces.main.read)
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s", traces.main.warning);
    if (!rt_ok(&trimmed)) {
        rt_status_free(&s);
        s = trimmed;
    }
    capture_traces_finish(&traces);
    return s;
}

/* --trim-frames: the layer writes the whole run to the temporary trace.
 * Capture-time screenshots would be numbered as the program ran, not as the
 * trimmed trace's frames: refused (replay the trimmed trace for them). */
static rt_status trim_output(struct capture_trim *trim, struct rt_capture_settings *settings)
{
    if (settings->screenshot_dir[0])
        return rt_errorf(RT_ERR_USAGE, "--trim-frames cannot be used with --screenshots (they would be numbered as "
                         "the program ran): take them with `retrace replay TRIMMED --screenshots DIR`");
    RT_TRY(capture_trim_prepare(trim, settings->output));
    snprintf(settings->output, sizeof settings->output, "%s", trim->temp);
    return rt_ok_status();
}

/* The exit status: the program's failure is the capture's (a nightly job
 * must not count a crash as a good capture); the trace is kept either way. */
static int finish_run(char **program, const struct rt_capture_settings *settings,
                      const struct capture_child *child, time_t started, struct capture_trim *trim)
{
    bool failed = report_program_status(program[0], child->status);
    rt_status s = summarise(program, settings, child->status, started, trim);
    /* Not run at all: exit 3 (README), not a program that failed. */
    failed = failed && !(could_not_run(child->status) && s.code == RT_ERR_BAD_INPUT);
    if (trim->on)
        capture_trim_remove_temp(trim); /* also after no_trace's probe run */
    if (child->stop_signal) {
        fprintf(stderr, "retrace: stopped by signal %d (%s), passed on to %s\n", child->stop_signal,
                strsignal(child->stop_signal), program[0]);
        capture_child_end_like(child->stop_signal);
    }
    capture_child_restore_signals();
    if (!rt_ok(&s) && !failed)
        return cli_fail(s);
    if (!rt_ok(&s))
        fprintf(stderr, "retrace: error: %s\n", s.msg);
    if (failed)
        fprintf(stderr, "retrace: error: %s failed, so retrace exits %d%s\n", program[0], CLI_EXIT_PROGRAM_FAILED,
                rt_ok(&s) ? "; the trace is kept" : "");
    rt_status_free(&s);
    return failed ? CLI_EXIT_PROGRAM_FAILED : 0;
}

int cmd_capture_run(int argc, char **argv)
{
    const struct rt_command *self = cli_find_command("capture");
    memset(flag_values, 0, sizeof flag_values);
    int program_index = 0;
    static struct capture_trim trim;
    trim = (struct capture_trim){0};
    int rc = parse_flags(argc, argv, self, &program_index, &trim);
    if (rc)
        return cli_exit_code(rc);
    char **program = argv + program_index;
    struct rt_capture_settings settings;
    rt_status s = rt_capture_settings_load(flag_getenv, "app", &settings);
    if (!rt_ok(&s)) {
        rc = settings_error(self, s.msg);
        rt_status_free(&s);
        return rc;
    }
    char layer_dir[PATH_MAX];
    s = absolute_output(flag_values[RT_CAPTURE_SETTING_OUTPUT], program[0], settings.output,
                        sizeof settings.output);
    if (rt_ok(&s))
        s = rt_output_file_check("-o", settings.output); /* before the program runs, not after */
    if (rt_ok(&s) && trim.on)
        s = trim_output(&trim, &settings);
    if (rt_ok(&s))
        s = prepare_screenshot_dir(&settings);
    if (rt_ok(&s))
        s = find_layer_dir(layer_dir, sizeof layer_dir);
    if (rt_ok(&s))
        s = export_environment(&settings, layer_dir);
    if (!rt_ok(&s)) {
        rt_capture_settings_finish(&settings);
        return cli_fail(s);
    }
    /* Never report a stale trace as this run's (nor make the layer think
     * another process is writing it). */
    char part[PATH_MAX + 16];
    snprintf(part, sizeof part, "%s.part", settings.output);
    unlink(settings.output);
    unlink(part);
    snprintf(part, sizeof part, "%s" RT_CAPTURE_SUMMARY_SUFFIX, settings.output);
    unlink(part); /* a summary left by a run whose retrace died: not this run's */
    struct capture_child child;
    time_t started = time(NULL);
    s = capture_child_run(program, &child);
    if (rt_ok(&s) && child.exec_errno) {
        capture_child_restore_signals();
        s = rt_errorf(RT_ERR_BAD_INPUT, "%s wrote no trace: cannot run it: %s", program[0],
                      strerror(child.exec_errno));
    }
    rc = rt_ok(&s) ? finish_run(program, &settings, &child, started, &trim) : cli_fail(s);
    rt_capture_settings_finish(&settings);
    return rc;
}
