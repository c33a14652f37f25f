/*
 * libFuzzer harness for the generated Vulkan decoder (gen/vkcodec_decode.c).
 *
 * The first 2 bytes pick a command (little-endian, modulo the command
 * count); the rest is decoded as that command's parameters into an arena with
 * a byte limit. A decode that succeeds is then printed, walked, compared with
 * itself and re-encoded, so every consumer of decoded values is exercised on
 * whatever the fuzzer makes the decoder accept.
 */
#include <stdint.h>
#include <stdlib.h>

#include "vkcodec.h"

static void ignore_handle(void *user, VkObjectType type, void *slot, bool output)
{
    (void)type, (void)output;
    *(unsigned *)user += slot != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    enum rt_vk_cmd cmd = (enum rt_vk_cmd)((data[0] | data[1] << 8) % RT_VK_CMD_COUNT);
    size_t args_size = rt_vk_args_size(cmd);
    if (args_size == 0)
        return 0;
    void *args = malloc(args_size);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 16u << 20);
    struct rt_dec dec;
    rt_dec_init(&dec, data + 2, size - 2, &arena);
    rt_status s = rt_vk_decode_call(&dec, cmd, args);
    if (rt_ok(&s)) {
        char text[256];
        unsigned handles = 0;
        (void)rt_vk_format_call(text, sizeof text, cmd, args, NULL);
        rt_vk_walk_handles(cmd, args, ignore_handle, &handles);
        if (!rt_vk_args_equal(cmd, args, args, NULL, 0))
            abort(); /* a decoded value must equal itself */
        struct rt_enc enc;
        rt_enc_init(&enc);
        s = rt_vk_encode_call(&enc, cmd, args);
        rt_enc_finish(&enc);
    }
    rt_status_free(&s); /* a refused input's error owns its message */
    rt_arena_finish(&arena);
    free(args);
    return 0;
}
