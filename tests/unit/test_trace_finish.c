/*
 * Unit tests for finishing traces: rt_trace_finish_part on what a dead
 * process leaves (cut mid-block, whole, empty, junk, still locked by a live
 * writer) and rt_trace_writer_finish (a writer other threads may still call).
 * The signal handlers that call the flush are capture's: test_capture_signals.c.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

#define OK(expr)                                       \
    do {                                               \
        rt_status s_ = (expr);                         \
        cr_assert(rt_ok(&s_), "%s: %s", #expr, s_.msg); \
    } while (0)

static const char *const names[] = {"vkCreateInstance", "vkQueueSubmit"};
static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/rt_finish_test_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(finish, .init = make_tmpdir, .fini = remove_tmpdir);

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", tmpdir, name);
}

static struct rt_trace_writer *open_writer(const char *path)
{
    struct rt_trace_writer_options o = {.path = path, .command_names = names, .command_count = 2,
                                        .compression = RT_TRACE_COMPRESSION_NONE};
    struct rt_trace_writer *w;
    OK(rt_trace_writer_create(&o, &w));
    return w;
}

/* FRAMES frames of 3 calls each: one block per frame. */
static void write_frames(struct rt_trace_writer *w, int frames)
{
    for (int f = 0; f < frames; f++) {
        for (uint32_t i = 0; i < 3; i++)
            OK(rt_trace_writer_call(w, 1, 7, 0, &i, sizeof i, NULL));
        OK(rt_trace_writer_frame_end(w));
    }
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(*size + 1);
    cr_assert_eq(fread(data, 1, *size, f), *size);
    fclose(f);
    return data;
}

static void spill(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* Reads PATH to its end; the progress says how far it is good. */
static struct rt_trace_progress read_through(const char *path, rt_status *status)
{
    struct rt_trace_reader *r;
    OK(rt_trace_reader_open(path, &r));
    struct rt_trace_packet p;
    do {
        *status = rt_trace_reader_next(r, &p);
    } while (rt_ok(status) && p.type != RT_TRACE_PACKET_END);
    struct rt_trace_progress progress;
    rt_trace_reader_progress(r, &progress);
    rt_trace_reader_destroy(r);
    return progress;
}

/* A whole trace of FRAMES frames, as bytes. */
static uint8_t *whole_trace(const char *name, int frames, size_t *size)
{
    char path[160];
    path_of(path, sizeof path, name);
    struct rt_trace_writer *w = open_writer(path);
    write_frames(w, frames);
    OK(rt_trace_writer_close(w, NULL));
    uint8_t *data = slurp(path, size);
    unlink(path);
    return data;
}

Test(finish, a_part_cut_mid_block_keeps_its_whole_blocks)
{
    size_t size;
    uint8_t *data = whole_trace("w.rtrace", 5, &size);
    char path[160], part[170];
    path_of(path, sizeof path, "cut.rtrace");
    snprintf(part, sizeof part, "%s.part", path);
    spill(part, data, size - 48 - 20); /* no end block, the last frame's block torn */
    struct rt_trace_progress p;
    OK(rt_trace_finish_part(path, &p));
    cr_assert_eq(p.frames, 4);
    cr_assert_eq(p.calls, 12);
    cr_assert_neq(access(part, F_OK), 0, "the .part is gone");
    rt_status s;
    struct rt_trace_progress read = read_through(path, &s);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(read.ended && read.emergency, "an emergency end block closes it");
    cr_assert_eq(read.frames, 4);
    free(data);
}

Test(finish, a_whole_part_is_only_renamed)
{
    size_t size;
    uint8_t *data = whole_trace("w.rtrace", 3, &size);
    char path[160], part[170];
    path_of(path, sizeof path, "whole.rtrace");
    snprintf(part, sizeof part, "%s.part", path);
    spill(part, data, size);
    struct rt_trace_progress p;
    OK(rt_trace_finish_part(path, &p));
    cr_assert_eq(p.frames, 3);
    size_t after;
    uint8_t *renamed = slurp(path, &after);
    cr_assert_eq(after, size);
    cr_assert_eq(memcmp(renamed, data, size), 0, "not a byte changed");
    free(renamed);
    free(data);
}

Test(finish, an_empty_part_is_removed_and_said)
{
    char path[160], part[170];
    path_of(path, sizeof path, "empty.rtrace");
    snprintf(part, sizeof part, "%s.part", path);
    spill(part, (const uint8_t *)"", 0);
    rt_status s = rt_trace_finish_part(path, NULL);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "empty"), "%s", s.msg);
    cr_assert_neq(access(part, F_OK), 0);
    cr_assert_neq(access(path, F_OK), 0);
    rt_status_free(&s);
}

Test(finish, a_part_without_a_header_is_left_alone)
{
    char path[160], part[170];
    path_of(path, sizeof path, "junk.rtrace");
    snprintf(part, sizeof part, "%s.part", path);
    spill(part, (const uint8_t *)"not a trace at all", 18);
    rt_status s = rt_trace_finish_part(path, NULL);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert_eq(access(part, F_OK), 0, "what cannot be finished stays");
    cr_assert_neq(access(path, F_OK), 0);
    rt_status_free(&s);
}

Test(finish, a_part_a_live_writer_holds_is_refused)
{
    char path[160];
    path_of(path, sizeof path, "live.rtrace");
    struct rt_trace_writer *w = open_writer(path);
    write_frames(w, 2);
    rt_status s = rt_trace_finish_part(path, NULL);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "still being written"), "%s", s.msg);
    OK(rt_trace_writer_close(w, NULL));
    cr_assert_eq(access(path, F_OK), 0, "the writer finished it itself");
    rt_status_free(&s);
}

Test(finish, a_finished_writer_stays_valid_and_refuses_appends)
{
    char path[160];
    path_of(path, sizeof path, "fin.rtrace");
    struct rt_trace_writer *w = open_writer(path);
    write_frames(w, 2);
    OK(rt_trace_writer_finish(w, NULL));
    cr_assert_eq(access(path, F_OK), 0, "renamed at finish");
    uint32_t v = 1;
    cr_assert_neq(rt_status_drop(rt_trace_writer_call(w, 1, 7, 0, &v, sizeof v, NULL)), RT_OK);
    cr_assert_neq(rt_status_drop(rt_trace_writer_frame_end(w)), RT_OK);
    cr_assert_neq(rt_status_drop(rt_trace_writer_finish(w, NULL)), RT_OK, "finishing twice is an error");
    rt_status s;
    struct rt_trace_progress read = read_through(path, &s);
    cr_assert(rt_ok(&s) && read.ended && !read.emergency, "a clean end: %s", s.msg);
    cr_assert_eq(read.frames, 2, "nothing after the end block");
    OK(rt_trace_writer_close(w, NULL)); /* only frees now */
}

