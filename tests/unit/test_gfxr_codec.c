/*
 * Unit tests for gen/gfxr: GFXReconstruct's parameter encoding, decoded into
 * retrace's argument blocks. Calls are built here byte by byte the way
 * GFXReconstruct writes them (docs/FORMATS.md §20), not with the decoder's
 * tables, and checked field by field; then every prefix and some hostile
 * values must fail cleanly.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gfxr_codec.h"

enum { NUL = 0x1, SINGLE = 0x2, ARRAY = 0x4, STRING = 0x8, STRUCT = 0x20, ADDR = 0x40, DATA = 0x80 };

static void u32(struct rt_enc *e, uint32_t v) { rt_enc_u32(e, v); }
static void u64(struct rt_enc *e, uint64_t v) { rt_enc_u64(e, v); }

/* A pointer preamble with an address; len for arrays and strings. */
static void ptr(struct rt_enc *e, uint32_t attr, uint64_t len)
{
    u32(e, attr | ADDR | DATA);
    u64(e, 0x7fff00001000ull);
    if (attr & (ARRAY | STRING))
        u64(e, len);
}

/* vkCreateBuffer(device 7, {size 4096, usage VERTEX, 1 queue family [3]}, NULL, &buffer 9) = VK_SUCCESS */
static void create_buffer(struct rt_enc *e)
{
    u64(e, 7);
    ptr(e, STRUCT | SINGLE, 0);
    u32(e, VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    u32(e, NUL); /* pNext */
    u32(e, 0);   /* flags */
    u64(e, 4096);
    u32(e, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    u32(e, VK_SHARING_MODE_CONCURRENT);
    u32(e, 1);
    ptr(e, ARRAY, 1);
    u32(e, 3);
    u32(e, NUL | STRUCT | SINGLE); /* pAllocator */
    ptr(e, SINGLE, 0);
    u64(e, 9);
    u32(e, (uint32_t)VK_SUCCESS);
}

static rt_status decode(struct rt_enc *e, size_t size, enum rt_vk_cmd cmd, void *out, struct rt_arena *arena)
{
    struct rt_dec dec;
    rt_dec_init(&dec, e->data, size, arena);
    return rt_gfxr_decode_call(&dec, cmd, out);
}

Test(gfxr_codec, create_buffer_field_by_field)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    create_buffer(&e);
    struct rt_vk_args_vkCreateBuffer a;
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkCreateBuffer, &a, &arena);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq((uint64_t)(uintptr_t)a.device, 7);
    cr_assert_eq(a.pCreateInfo->size, 4096);
    cr_assert_eq(a.pCreateInfo->usage, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    cr_assert_eq(a.pCreateInfo->queueFamilyIndexCount, 1);
    cr_assert_eq(a.pCreateInfo->pQueueFamilyIndices[0], 3);
    cr_assert_null(a.pCreateInfo->pNext);
    cr_assert_null(a.pAllocator);
    cr_assert_eq((uint64_t)(uintptr_t)*a.pBuffer, 9);
    cr_assert_eq(a.result, VK_SUCCESS);
    cr_assert_eq(rt_gfxr_return_value(RT_VK_CMD_vkCreateBuffer, &a), 0);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

Test(gfxr_codec, every_prefix_and_a_trailing_byte_fail)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    create_buffer(&e);
    struct rt_vk_args_vkCreateBuffer a;
    for (size_t n = 0; n < e.size; n++) {
        rt_arena_reset(&arena);
        rt_status s = decode(&e, n, RT_VK_CMD_vkCreateBuffer, &a, &arena);
        cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "prefix %zu of %zu decoded", n, e.size);
        rt_status_free(&s);
    }
    rt_enc_u8(&e, 0);
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkCreateBuffer, &a, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "bytes left"), "%s", s.msg);
    rt_status_free(&s);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

Test(gfxr_codec, a_count_past_the_input_and_unknown_attributes_fail)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    create_buffer(&e);
    size_t count_at = 8 + 4 + 8 + 4 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + 8; /* pQueueFamilyIndices' length */
    uint64_t huge = UINT64_MAX / 2;
    memcpy(e.data + count_at, &huge, 8);
    struct rt_vk_args_vkCreateBuffer a;
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkCreateBuffer, &a, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "pQueueFamilyIndices"), "%s", s.msg);
    rt_status_free(&s);
    uint32_t attr = 0x8000 | STRUCT | SINGLE | DATA;
    memcpy(e.data + 8, &attr, 4);
    s = decode(&e, e.size, RT_VK_CMD_vkCreateBuffer, &a, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "unknown pointer attributes"), "%s", s.msg);
    rt_status_free(&s);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

/* vkCmdClearColorImage: VkClearColorValue travels as a u32[4] array (gfxr_rules.py). */
Test(gfxr_codec, clear_color_union_is_an_array_of_four)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    u64(&e, 5);
    u64(&e, 6);
    u32(&e, VK_IMAGE_LAYOUT_GENERAL);
    ptr(&e, STRUCT | SINGLE, 0);
    ptr(&e, ARRAY, 4);
    for (uint32_t i = 0; i < 4; i++)
        u32(&e, 0x3f800000u + i);
    u32(&e, 1);
    ptr(&e, STRUCT | ARRAY, 1);
    u32(&e, VK_IMAGE_ASPECT_COLOR_BIT);
    u32(&e, 0);
    u32(&e, 1);
    u32(&e, 0);
    u32(&e, 1);
    struct rt_vk_args_vkCmdClearColorImage a;
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkCmdClearColorImage, &a, &arena);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(a.pColor->uint32[0], 0x3f800000u);
    cr_assert_eq(a.pColor->uint32[3], 0x3f800003u);
    cr_assert_eq(a.rangeCount, 1);
    cr_assert_eq(a.pRanges[0].levelCount, 1);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

/* A fixed array with its used length (memoryTypes by memoryTypeCount); the rest is zero. */
Test(gfxr_codec, fixed_arrays_travel_with_their_used_length)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    u64(&e, 2);
    ptr(&e, STRUCT | SINGLE, 0);
    u32(&e, 1);
    ptr(&e, STRUCT | ARRAY, 1);
    u32(&e, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    u32(&e, 0);
    u32(&e, 1);
    ptr(&e, STRUCT | ARRAY, 1);
    u64(&e, 1ull << 31);
    u32(&e, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT);
    struct rt_vk_args_vkGetPhysicalDeviceMemoryProperties a;
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkGetPhysicalDeviceMemoryProperties, &a, &arena);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(a.pMemoryProperties->memoryTypeCount, 1);
    cr_assert_eq(a.pMemoryProperties->memoryTypes[0].propertyFlags, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    cr_assert_eq(a.pMemoryProperties->memoryTypes[1].propertyFlags, 0);
    cr_assert_eq(a.pMemoryProperties->memoryHeaps[0].size, 1ull << 31);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

/* GFXReconstruct nests a pNext chain (each node holds the next): a chain
 * longer than the struct nesting limit (zink's vkCreateDevice) still decodes. */
Test(gfxr_codec, long_pnext_chains_decode)
{
    struct rt_enc e;
    struct rt_arena arena;
    rt_enc_init(&e);
    rt_arena_init(&arena, 4096, 1 << 20);
    enum { NODES = 40 };
    u64(&e, 7);
    ptr(&e, STRUCT | SINGLE, 0);
    u32(&e, VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    for (int i = 0; i < NODES; i++) {
        ptr(&e, STRUCT | SINGLE, 0);
        u32(&e, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    }
    u32(&e, NUL);
    for (int i = 0; i < NODES; i++)
        u32(&e, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    u32(&e, 0);
    u64(&e, 64);
    u32(&e, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    u32(&e, VK_SHARING_MODE_EXCLUSIVE);
    u32(&e, 0);
    u32(&e, NUL | ARRAY);
    u32(&e, NUL | STRUCT | SINGLE);
    ptr(&e, SINGLE, 0);
    u64(&e, 9);
    u32(&e, (uint32_t)VK_SUCCESS);
    struct rt_vk_args_vkCreateBuffer a;
    rt_status s = decode(&e, e.size, RT_VK_CMD_vkCreateBuffer, &a, &arena);
    cr_assert(rt_ok(&s), "%s", s.msg);
    int n = 0;
    for (const VkBaseInStructure *b = a.pCreateInfo->pNext; b; b = b->pNext, n++)
        cr_assert_eq(b->sType, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    cr_assert_eq(n, NODES);
    cr_assert_eq(a.pCreateInfo->size, 64);
    rt_arena_finish(&arena);
    rt_enc_finish(&e);
}

Test(gfxr_codec, call_ids_name_their_commands)
{
    const struct rt_gfxr_call *c = rt_gfxr_call_find(0x11000);
    cr_assert_not_null(c);
    cr_assert_str_eq(c->name, "vkCreateInstance");
    cr_assert_eq(c->cmd, RT_VK_CMD_vkCreateInstance);
    cr_assert_eq(c->kind, RT_GFXR_CALL_GENERIC);
    cr_assert_null(rt_gfxr_call_find(0x1ffff));
    cr_assert_null(rt_gfxr_call_find(0));
}
