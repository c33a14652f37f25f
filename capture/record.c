/* capture/record.c — the capture session: settings, trace writer, memory
 * tracker, and the encoding of every call. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "log.h"
#include "settings.h"
#include "signals.h"
#include "trace.h"

static struct {
    pthread_mutex_t lock;
    int refs;
    struct rt_capture_settings settings;
    /* Read without the lock by every recorded call: atomic, and never freed
     * (the exit-time close finishes it, other threads may still hold it). */
    _Atomic(struct rt_trace_writer *) writer;
    struct rt_memory_tracker *tracker;
    bool device_set;
    bool finished; /* closed at exit: an instance created after that records nothing */
    _Atomic uint64_t frame; /* the frame being recorded, from 1 */
    _Atomic bool warned[RT_VK_CMD_COUNT];
    _Atomic bool warned_write;
} session = {.lock = PTHREAD_MUTEX_INITIALIZER, .frame = 1};

/* A block ends at the first frame end after it has been open this long: a
 * tenth of a second of frames per block compresses about twice as well as
 * one frame per block (glxgears: 2.25 MB -> 1.11 MB for 1000 frames) and
 * hands the writer thread a tenth of the blocks. Only a SIGKILL loses the
 * open block; signals and exit() flush it. */
#define CAPTURE_FRAME_SEAL_MS 100

/* zstd level of the capture's blocks. The writer thread compresses on the
 * program's cores, so its time is the program's: level 1 compresses
 * glxgears' 21 MB of raw trace (1000 frames through zink, 1 MiB blocks) in
 * about 60% of level 3's CPU time (30 against 50 ms) for 0.4% more bytes
 * (1,083,758 against 1,079,634; rt_app_readback +2.7%, vkcube +2%); offline
 * writers (trim, import) keep the writer's default. */
#define CAPTURE_ZSTD_LEVEL 1

static _Thread_local struct rt_enc call_encoder;
static _Thread_local uint32_t thread_id_cache;

/* gettid() is a system call; every recorded call needs it. */
static uint32_t current_thread_id(void)
{
    if (!thread_id_cache)
        thread_id_cache = (uint32_t)gettid();
    return thread_id_cache;
}

/* A call after the emergency flush (a signal is ending the process while
 * other threads still call Vulkan) is expected: the trace is complete up to
 * the flush, so that is a note, once, and not an error. */
static void warn_write_failure(struct rt_trace_writer *w, rt_status s)
{
    if (rt_ok(&s))
        return;
    if (!atomic_exchange(&session.warned_write, true)) {
        if (rt_trace_writer_flushed_in_emergency(w))
            fprintf(stderr, "retrace: note: capture: the trace was finished by the emergency flush (the program "
                    "is ending on a signal); calls made after it, until the process ends, are not recorded\n");
        else
            rt_log(RT_LOG_ERROR, "capture: writing the trace failed: %s", s.msg);
    }
    rt_status_free(&s);
}

static const char *const *command_names(void)
{
    static const char *names[RT_VK_CMD_COUNT];
    for (size_t i = 0; i < RT_VK_CMD_COUNT; i++)
        names[i] = rt_vk_cmd_name((enum rt_vk_cmd)i);
    return names;
}

/* Claims the output name atomically. Another process already writing or
 * having written it (a launcher and its child, two runs of a program enabled
 * by hand) keeps its trace: this one writes NAME-PID.rtrace instead. */
static void claim_output(char *output, size_t size)
{
    char part[PATH_MAX + 8];
    snprintf(part, sizeof part, "%s.part", output);
    int fd = access(output, F_OK) == 0 ? -1 : open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
        return;
    }
    size_t n = strlen(output);
    size_t stem_len = n > 7 && !strcmp(output + n - 7, ".rtrace") ? n - 7 : n;
    char suffix[32];
    snprintf(suffix, sizeof suffix, "-%ld.rtrace", (long)getpid());
    if (stem_len + strlen(suffix) >= size)
        return; /* no room for another name: keep this one */
    char taken[PATH_MAX];
    snprintf(taken, sizeof taken, "%s", output);
    memcpy(output + stem_len, suffix, strlen(suffix) + 1);
    rt_log(RT_LOG_WARN, "capture: another process writes the trace named %s; this one writes %s", taken, output);
}

static const char *tracking_name(const struct rt_memory_tracker *tracker)
{
    static const char *const how[] = {
        [RT_TRACK_NO_GUARD] = "full (whole mapped ranges at every submit)",
        [RT_TRACK_USERFAULTFD] = "page-guard through userfaultfd write-protect faults",
        [RT_TRACK_SIGNALS] = "page-guard through SIGSEGV and mprotect",
        [RT_TRACK_WP_ASYNC] = "page-guard through userfaultfd asynchronous write-protect and PAGEMAP_SCAN",
    };
    return how[rt_tracker_backend(tracker)];
}

/* Which memory-tracking path this run took (chosen at run time: the kernel
 * may refuse userfaultfd), as a note in the trace: `retrace dump` shows it. */
static void note_tracking(struct rt_trace_writer *w, const struct rt_memory_tracker *tracker)
{
    char text[128];
    snprintf(text, sizeof text, "memory tracking: %s", tracking_name(tracker));
    warn_write_failure(w, rt_trace_writer_annotation(w, RT_TRACE_ANNOTATION_NOTE, text));
}

static rt_status open_writer(const VkInstanceCreateInfo *info)
{
    claim_output(session.settings.output, sizeof session.settings.output);
    const VkApplicationInfo *app = info->pApplicationInfo;
    char settings_text[512];
    rt_capture_settings_describe(&session.settings, settings_text, sizeof settings_text);
    struct rt_trace_writer_options options = {
        .path = session.settings.output,
        .compression = session.settings.compression,
        .application_name = app ? app->pApplicationName : NULL,
        .engine_name = app ? app->pEngineName : NULL,
        .application_version = app ? app->applicationVersion : 0,
        .engine_version = app ? app->engineVersion : 0,
        .api_version = app ? app->apiVersion : VK_API_VERSION_1_0,
        .vk_header_version = VK_HEADER_VERSION_COMPLETE,
        .settings = settings_text,
        .command_names = command_names(),
        .command_count = RT_VK_CMD_COUNT,
        .frame_seal_ms = CAPTURE_FRAME_SEAL_MS,
        .compression_level = CAPTURE_ZSTD_LEVEL,
    };
    struct rt_trace_writer *w;
    RT_TRY(rt_trace_writer_create(&options, &w));
    rt_status s = capture_signals_install();
    if (rt_ok(&s))
        s = rt_tracker_create(session.settings.memory_tracking, &session.tracker);
    if (!rt_ok(&s)) {
        rt_status closed = rt_trace_writer_close(w, NULL); /* s says why it ends here */
        rt_status_free(&closed);
        unlink(session.settings.output);
        return s;
    }
    rt_tracker_set_verify(session.tracker, capture_record_verify, NULL);
    note_tracking(w, session.tracker);
    capture_signals_set_trace(w);
    atomic_store(&session.writer, w);
    return rt_ok_status();
}

/* RETRACE_TRACK_STATS: what memory tracking cost, for bench/README.md. */
static void print_tracking_stats(const struct rt_memory_tracker *tracker)
{
    if (!getenv("RETRACE_TRACK_STATS") || !tracker)
        return;
    struct rt_tracker_stats st = rt_tracker_stats(tracker);
    uint64_t frames = atomic_load(&session.frame);
    fprintf(stderr,
            "retrace: tracking stats: frames %llu, faults %llu (%.1f ms), collects %llu (%.1f ms), "
            "refreshes %llu (%.1f ms), pages reported %llu, unchanged %llu, protected again %llu, bytes %llu, kept at refreshes %llu\n",
            (unsigned long long)frames, (unsigned long long)st.faults, (double)st.fault_ns / 1e6,
            (unsigned long long)st.collects, (double)st.collect_ns / 1e6, (unsigned long long)st.refreshes,
            (double)st.refresh_ns / 1e6, (unsigned long long)st.pages_reported,
            (unsigned long long)st.pages_unchanged, (unsigned long long)st.reprotects,
            (unsigned long long)st.bytes_reported, (unsigned long long)st.pages_kept);
}

/* The program `retrace capture` started (its output is -o, not NAME-PID)
 * hands it the summary's counts (settings.h, RT_CAPTURE_SUMMARY_SUFFIX):
 * the parent would otherwise decompress and decode the whole trace again. */
static void hand_summary(const struct rt_trace_writer_stats *st)
{
    if (session.settings.output_parent <= 0 || (long)getppid() != session.settings.output_parent ||
        session.settings.screenshot_dir[0])
        return;
    struct rt_capture_summary summary = {.frames = st->frames, .calls = st->calls, .packets = st->packets,
                                         .blocks = st->blocks, .raw_bytes = st->raw_bytes,
                                         .file_bytes = st->file_bytes};
    if (session.tracker)
        snprintf(summary.tracking, sizeof summary.tracking, "%s", tracking_name(session.tracker));
    rt_capture_summary_write(session.settings.output, &summary); /* else the parent reads the trace */
}

/* The trace stays open from the first vkCreateInstance to the process's
 * exit: many programs create an instance only to look at the devices and
 * destroy it before creating the real one, and both belong in one trace.
 * At exit the program's other threads may still be running and calling:
 * the writer is finished, not freed, and the tracker and settings stay (a
 * thread still writing guarded memory must find its pages). */
static void close_trace_locked(void)
{
    struct rt_trace_writer *w = atomic_load(&session.writer);
    if (!w)
        return;
    rt_tracker_take_read_back(session.tracker);
    rt_tracker_collect(session.tracker, capture_record_memory, NULL);
    print_tracking_stats(session.tracker);
    atomic_store(&session.writer, NULL); /* late calls from other threads record nothing */
    session.finished = true;
    struct rt_trace_writer_stats stats;
    rt_status finished = rt_trace_writer_finish(w, &stats);
    if (rt_ok(&finished))
        hand_summary(&stats);
    warn_write_failure(w, finished);
    capture_signals_set_trace(NULL); /* renamed: nothing left for a signal to finish */
}

static void close_at_exit(void)
{
    pthread_mutex_lock(&session.lock);
    close_trace_locked();
    pthread_mutex_unlock(&session.lock);
}

static rt_status start_trace(const VkInstanceCreateInfo *info)
{
    static bool exit_hook;
    RT_TRY(rt_capture_settings_load((rt_getenv_fn)getenv, program_invocation_short_name, &session.settings));
    RT_TRY(open_writer(info));
    /* After signals.c's exit hook: atexit runs this one first. */
    if (!exit_hook && atexit(close_at_exit) == 0)
        exit_hook = true;
    return rt_ok_status();
}

VkResult capture_session_open(const VkInstanceCreateInfo *info)
{
    pthread_mutex_lock(&session.lock);
    rt_status s = atomic_load(&session.writer) || session.finished ? rt_ok_status() : start_trace(info);
    if (rt_ok(&s))
        session.refs++;
    pthread_mutex_unlock(&session.lock);
    if (!rt_ok(&s)) {
        rt_log(RT_LOG_ERROR, "capture: %s", s.msg);
        rt_status_free(&s);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return VK_SUCCESS;
}

void capture_session_close(void)
{
    pthread_mutex_lock(&session.lock);
    /* The last instance gone: what the program wrote so far goes in now; the
     * trace itself closes at exit, in case another instance follows. */
    if (session.refs > 0 && --session.refs == 0 && session.tracker)
        rt_tracker_collect(session.tracker, capture_record_memory, NULL);
    pthread_mutex_unlock(&session.lock);
}

void capture_record_call(enum rt_vk_cmd cmd, const void *args, uint64_t return_value)
{
    struct rt_trace_writer *w = atomic_load_explicit(&session.writer, memory_order_acquire);
    if (!w)
        return;
    struct rt_enc *enc = &call_encoder;
    rt_enc_reset(enc);
    struct rt_vk_stats stats = {0};
    rt_status s = rt_vk_encode_call_stats(enc, cmd, args, &stats);
    uint32_t thread_id = current_thread_id();
    if (!rt_ok(&s)) {
        if (!atomic_exchange(&session.warned[cmd], true))
            rt_log(RT_LOG_WARN, "capture: %s cannot be recorded faithfully (%s); it is forwarded "
                   "and marked unsupported in the trace", rt_vk_cmd_name(cmd), s.msg);
        warn_write_failure(w, rt_trace_writer_unsupported(w, (uint32_t)cmd, thread_id, s.msg));
        rt_status_free(&s);
        return;
    }
    if (stats.unknown_stypes && !atomic_exchange(&session.warned[cmd], true))
        rt_log(RT_LOG_WARN, "capture: %s: pNext sType %u is unknown to this build; recorded as unknown",
               rt_vk_cmd_name(cmd), stats.last_unknown_stype);
    /* Pages the program read back since the last call: a verification point
     * before this call, or after it for a wait (reads racing with its refresh). */
    bool waits = rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_WAITS;
    if (!waits && session.tracker)
        rt_tracker_take_read_back(session.tracker);
    warn_write_failure(w, rt_trace_writer_call(w, (uint32_t)cmd, thread_id, return_value, enc->data,
                                            enc->size, NULL));
    if (waits && session.tracker)
        rt_tracker_take_read_back(session.tracker);
}

void capture_record_memory(void *ctx, uint64_t memory_id, uint64_t offset, const void *data, size_t size)
{
    (void)ctx;
    struct rt_trace_writer *w = atomic_load_explicit(&session.writer, memory_order_acquire);
    if (w)
        warn_write_failure(w, rt_trace_writer_memory_update(w, memory_id, offset, data, size));
}

/* A verification point: what the application read back after a wait. */
void capture_record_verify(void *ctx, const struct rt_trace_verify_range *ranges, size_t count)
{
    (void)ctx;
    struct rt_trace_writer *w = atomic_load_explicit(&session.writer, memory_order_acquire);
    if (w)
        warn_write_failure(w, rt_trace_writer_verify(w, ranges, count));
}

void capture_record_annotation(unsigned kind, const char *text)
{
    struct rt_trace_writer *w = atomic_load_explicit(&session.writer, memory_order_acquire);
    if (w)
        warn_write_failure(w, rt_trace_writer_annotation(w, (enum rt_trace_annotation_kind)kind, text));
}

void capture_end_frame(void)
{
    struct rt_trace_writer *w = atomic_load_explicit(&session.writer, memory_order_acquire);
    if (w)
        warn_write_failure(w, rt_trace_writer_frame_end(w));
    atomic_fetch_add(&session.frame, 1);
}

uint64_t capture_current_frame(void) { return atomic_load(&session.frame); }

bool capture_frame_delimiter_is_submit(void)
{
    return session.settings.frame_delimiter == RT_FRAME_DELIMITER_SUBMIT;
}

struct rt_memory_tracker *capture_tracker(void) { return session.tracker; }

const char *capture_screenshot_dir(void) { return session.settings.screenshot_dir; }

bool capture_screenshot_wanted(uint64_t frame)
{
    return session.settings.screenshot_dir[0] &&
           rt_frame_list_contains(&session.settings.screenshot_frames, frame);
}

void capture_before_submit(const void *queue)
{
    (void)queue;
    capture_collect_imports(); /* host_memory.c */
    if (session.tracker)
        rt_tracker_collect(session.tracker, capture_record_memory, NULL);
}

void capture_after_submit(const void *queue)
{
    (void)queue;
    if (capture_frame_delimiter_is_submit())
        capture_end_frame();
}

void capture_after_sync(const void *dispatchable)
{
    (void)dispatchable;
    if (session.tracker)
        rt_tracker_refresh(session.tracker);
}

static void copy_name(char *dst, const char *src, size_t size)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* vendorID, driver, UUIDs and memory layout: what replay needs to know where
 * the trace came from. Queried from the next layer, so nothing is recorded. */
static void describe_device(const struct capture_instance *instance, VkPhysicalDevice gpu,
                            struct rt_trace_device_info *out)
{
    const struct rt_vk_instance_dispatch *d = &instance->dispatch;
    VkPhysicalDeviceProperties props;
    d->vkGetPhysicalDeviceProperties(gpu, &props);
    *out = (struct rt_trace_device_info){
        .vendor_id = props.vendorID, .device_id = props.deviceID,
        .driver_version = props.driverVersion, .api_version = props.apiVersion,
        .device_type = (uint32_t)props.deviceType};
    copy_name(out->device_name, props.deviceName, sizeof out->device_name);
    memcpy(out->pipeline_cache_uuid, props.pipelineCacheUUID, VK_UUID_SIZE);
    if (props.apiVersion >= VK_API_VERSION_1_2 && instance->api_version >= VK_API_VERSION_1_1 &&
        d->vkGetPhysicalDeviceProperties2) {
        VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
                                           .pNext = &driver};
        VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                              .pNext = &id};
        d->vkGetPhysicalDeviceProperties2(gpu, &props2);
        out->driver_id = (uint32_t)driver.driverID;
        copy_name(out->driver_name, driver.driverName, sizeof out->driver_name);
        copy_name(out->driver_info, driver.driverInfo, sizeof out->driver_info);
        memcpy(out->device_uuid, id.deviceUUID, VK_UUID_SIZE);
        memcpy(out->driver_uuid, id.driverUUID, VK_UUID_SIZE);
    }
    VkPhysicalDeviceMemoryProperties mem;
    d->vkGetPhysicalDeviceMemoryProperties(gpu, &mem);
    out->memory_type_count = mem.memoryTypeCount;
    for (uint32_t i = 0; i < mem.memoryTypeCount && i < RT_TRACE_MAX_MEMORY_TYPES; i++)
        out->memory_types[i] = (struct rt_trace_memory_type){mem.memoryTypes[i].propertyFlags,
                                                             mem.memoryTypes[i].heapIndex};
    out->memory_heap_count = mem.memoryHeapCount;
    for (uint32_t i = 0; i < mem.memoryHeapCount && i < RT_TRACE_MAX_MEMORY_HEAPS; i++)
        out->memory_heaps[i] = (struct rt_trace_memory_heap){mem.memoryHeaps[i].size,
                                                             mem.memoryHeaps[i].flags};
}

void capture_session_set_device(const struct capture_instance *instance, VkPhysicalDevice gpu)
{
    pthread_mutex_lock(&session.lock);
    struct rt_trace_writer *w = atomic_load(&session.writer);
    if (w && !session.device_set) {
        struct rt_trace_device_info info;
        describe_device(instance, gpu, &info);
        warn_write_failure(w, rt_trace_writer_set_device_info(w, &info));
        session.device_set = true;
    }
    pthread_mutex_unlock(&session.lock);
}
