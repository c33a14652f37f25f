/*
 * tests/cli/make_hostile_trace.c — writes a valid .rtrace whose strings hold
 * every kind of awkward byte: control characters, quotes, backslashes, NUL
 * (where a length allows it), invalid and valid UTF-8. `retrace dump` must
 * print it escaped, and `dump --json` must stay valid JSON. (The writer
 * takes C strings, so no NUL; dump escapes one from a length too.)
 *
 * usage: make_hostile_trace OUT
 * Packets: vkCreateInstance whose application and engine names are hostile,
 * a hostile annotation and unsupported-command reason, and a
 * call of a command whose name in the trace's table is hostile too.
 */
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "vkcodec.h"

/* Tab, newline, ESC, DEL, quote, backslash, a lone continuation byte, a
 * truncated 3-byte sequence, an overlong '/', a surrogate, then valid é and
 * U+1F600. */
#define HOSTILE "a\tb\nc\x1b[31m\x7f\"q\\\x80\xe2\x82\xc0\xaf\xed\xa0\x80 \xc3\xa9\xf0\x9f\x98\x80"

static const char *const names[] = {"vkCreateInstance", "vkWeird\x01\xff\"Name"};

static rt_status write_instance(struct rt_trace_writer *w)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = HOSTILE, .pEngineName = "\x01\x02\x03",
                             .apiVersion = VK_API_VERSION_1_0};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance = (VkInstance)(uintptr_t)0x1000;
    struct rt_vk_args_vkCreateInstance args = {.pCreateInfo = &info, .pInstance = &instance};
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, RT_VK_CMD_vkCreateInstance, &args);
    if (rt_ok(&s))
        s = rt_trace_writer_call(w, 0, 1, 0, enc.data, enc.size, NULL);
    rt_enc_finish(&enc);
    return s;
}

static rt_status write_trace(const char *path)
{
    struct rt_trace_writer_options wo = {
        .path = path, .compression = RT_TRACE_COMPRESSION_NONE,
        .application_name = "make_hostile_trace", .engine_name = "none",
        .command_names = names, .command_count = 2};
    struct rt_trace_writer *w;
    RT_TRY(rt_trace_writer_create(&wo, &w));
    rt_status s = write_instance(w);
    if (rt_ok(&s))
        s = rt_trace_writer_annotation(w, RT_TRACE_ANNOTATION_DEBUG_LABEL, "label " HOSTILE);
    if (rt_ok(&s))
        s = rt_trace_writer_unsupported(w, 1, 1, "reason " HOSTILE);
    if (rt_ok(&s))
        s = rt_trace_writer_call(w, 1, 1, 0, "xyz", 3, NULL);
    if (rt_ok(&s))
        s = rt_trace_writer_frame_end(w);
    rt_status closed = rt_trace_writer_close(w, NULL);
    return rt_ok(&s) ? closed : s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_hostile_trace OUT\n");
        return 2;
    }
    rt_status s = write_trace(argv[1]);
    if (!rt_ok(&s)) {
        fprintf(stderr, "make_hostile_trace: %s\n", s.msg);
        return 1;
    }
    return 0;
}
