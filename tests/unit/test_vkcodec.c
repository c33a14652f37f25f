/*
 * Unit tests for gen/: the generated Vulkan codec.
 *
 * Three kinds: (1) symmetric round trips over every struct and every command
 * with random valid values; (2) hand-built values (C initializers, not the
 * tables) checked field by field after decoding, which catches table mistakes
 * a symmetric round trip cannot; (3) hostile input: every prefix, absurd
 * counts, bad markers, unknown sTypes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vk_dispatch_gen.h"
#include "vkcodec.h"

#define SEEDS 6

struct buf {
    uint8_t *data;
    size_t size;
};

static struct buf encode_call(enum rt_vk_cmd cmd, const void *args)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, cmd, args);
    cr_assert(rt_ok(&s), "%s: %s", rt_vk_cmd_name(cmd), s.msg);
    struct buf b = {enc.data, enc.size};
    return b;
}

static void *decode_call(struct buf b, enum rt_vk_cmd cmd, struct rt_arena *arena)
{
    void *out = calloc(1, rt_vk_args_size(cmd));
    struct rt_dec dec;
    rt_dec_init(&dec, b.data, b.size, arena);
    rt_status s = rt_vk_decode_call(&dec, cmd, out);
    cr_assert(rt_ok(&s), "%s: %s", rt_vk_cmd_name(cmd), s.msg);
    cr_assert_eq(rt_dec_left(&dec), 0, "%s: trailing bytes", rt_vk_cmd_name(cmd));
    return out;
}

/* Random value -> encode -> decode -> deep compare -> re-encode, same bytes. */
static void round_trip_struct(enum rt_vk_struct_type t, uint64_t seed)
{
    struct rt_arena a, b;
    rt_arena_init(&a, 0, 0);
    rt_arena_init(&b, 0, 64u << 20);
    size_t size = rt_vk_struct_size(t);
    void *v = calloc(1, size), *w = calloc(1, size);
    rt_status s = rt_vk_random_struct(t, v, &a, &seed);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_enc e1, e2;
    rt_enc_init(&e1);
    rt_enc_init(&e2);
    s = rt_vk_encode_struct(&e1, t, v);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_dec d;
    rt_dec_init(&d, e1.data, e1.size, &b);
    s = rt_vk_decode_struct(&d, t, w);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(rt_dec_left(&d), 0, "%s: trailing bytes", rt_vk_structs[t].name);
    char where[256] = "";
    cr_assert(rt_vk_struct_equal(t, v, w, where, sizeof where), "%s differs at %s", rt_vk_structs[t].name, where);
    s = rt_vk_encode_struct(&e2, t, w);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert(e1.size == e2.size && memcmp(e1.data, e2.data, e1.size) == 0, "%s: re-encoding differs",
              rt_vk_structs[t].name);
    rt_enc_finish(&e1);
    rt_enc_finish(&e2);
    free(v);
    free(w);
    rt_arena_finish(&a);
    rt_arena_finish(&b);
}

static void round_trip_cmd(enum rt_vk_cmd cmd, uint64_t seed)
{
    struct rt_arena a, b;
    rt_arena_init(&a, 0, 0);
    rt_arena_init(&b, 0, 64u << 20);
    void *v = calloc(1, rt_vk_args_size(cmd));
    rt_status s = rt_vk_random_args(cmd, v, &a, &seed);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct buf e1 = encode_call(cmd, v);
    void *w = decode_call(e1, cmd, &b);
    char where[256] = "";
    cr_assert(rt_vk_args_equal(cmd, v, w, where, sizeof where), "%s differs at %s", rt_vk_cmd_name(cmd), where);
    struct buf e2 = encode_call(cmd, w);
    cr_assert(e1.size == e2.size && memcmp(e1.data, e2.data, e1.size) == 0, "%s: re-encoding differs",
              rt_vk_cmd_name(cmd));
    free(e1.data);
    free(e2.data);
    free(v);
    free(w);
    rt_arena_finish(&a);
    rt_arena_finish(&b);
}

Test(vkcodec, every_struct_round_trips)
{
    unsigned tested = 0, skipped = 0;
    for (int t = 0; t < RT_VK_STRUCT_COUNT; t++) {
        if (!rt_vk_struct_encodable((enum rt_vk_struct_type)t)) {
            skipped++;
            continue;
        }
        for (uint64_t seed = 1; seed <= SEEDS; seed++)
            round_trip_struct((enum rt_vk_struct_type)t, seed * 7919 + (uint64_t)t);
        tested++;
    }
    /* Skipped: overrides.py's exclusions and platforms without headers here. */
    cr_log_info("structs round-tripped: %u of %u (%u skipped)", tested, RT_VK_STRUCT_COUNT, skipped);
    /* 8 reach gen/overrides.py's exclusions (vk_coverage.txt); the rest are
     * platforms whose headers are not compiled here (Win32, Android, ...). */
    unsigned compiled_but_skipped = 0;
    for (int t = 0; t < RT_VK_STRUCT_COUNT; t++)
        if (rt_vk_structs[t].compiled && !rt_vk_struct_encodable((enum rt_vk_struct_type)t))
            compiled_but_skipped++;
    cr_assert_leq(compiled_but_skipped, 8);
    cr_assert_gt(tested, 860);
}

Test(vkcodec, every_command_round_trips)
{
    unsigned tested = 0, skipped = 0;
    for (int c = 0; c < RT_VK_CMD_COUNT; c++) {
        if (!rt_vk_cmd_encodable((enum rt_vk_cmd)c)) {
            skipped++;
            continue;
        }
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            round_trip_cmd((enum rt_vk_cmd)c, seed * 104729 + (uint64_t)c);
        }
        tested++;
    }
    cr_log_info("commands round-tripped: %u of %u (%u skipped)", tested, RT_VK_CMD_COUNT, skipped);
    cr_assert_gt(tested, 560);
    cr_assert_lt(skipped, 60);
}

Test(vkcodec, random_values_really_vary)
{
    /* Guards the round trips against a random fill that degenerates to zeros. */
    struct rt_arena a;
    rt_arena_init(&a, 0, 0);
    uint64_t seed = 42;
    struct rt_vk_args_vkCreateInstance args;
    unsigned names = 0, chains = 0;
    for (int i = 0; i < 64; i++) {
        rt_status s = rt_vk_random_args(RT_VK_CMD_vkCreateInstance, &args, &a, &seed);
        cr_assert(rt_ok(&s));
        if (args.pCreateInfo && args.pCreateInfo->enabledExtensionCount > 0)
            names++;
        if (args.pCreateInfo && args.pCreateInfo->pNext)
            chains++;
    }
    cr_assert_gt(names, 8);
    cr_assert_gt(chains, 8);
    rt_arena_finish(&a);
}

/* ---- hand-built values, checked field by field -------------------------- */

static VkBool32 VKAPI_PTR debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                   const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)sev, (void)types, (void)data, (void)user;
    return VK_FALSE;
}

Test(vkcodec, instance_create_info_by_hand)
{
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = debug_cb,
        .pUserData = (void *)(uintptr_t)0x1234,
    };
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "demo",
                             .applicationVersion = 7, .pEngineName = NULL, .apiVersion = VK_API_VERSION_1_3};
    const char *exts[] = {"VK_KHR_surface", "VK_EXT_debug_utils"};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &dbg,
                               .pApplicationInfo = &app, .enabledExtensionCount = 2,
                               .ppEnabledExtensionNames = exts};
    VkInstance inst = (VkInstance)(uintptr_t)0xABCDEF;
    struct rt_vk_args_vkCreateInstance args = {&ci, NULL, &inst, VK_SUCCESS};
    struct buf b = encode_call(RT_VK_CMD_vkCreateInstance, &args);
    /* Presence of pCreateInfo, then its sType as a LE u32. */
    cr_assert_eq(b.data[0], 1);
    cr_assert_eq(b.data[1] | b.data[2] << 8, VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_vk_args_vkCreateInstance *d = decode_call(b, RT_VK_CMD_vkCreateInstance, &arena);
    const VkInstanceCreateInfo *dc = d->pCreateInfo;
    cr_assert_eq(dc->sType, VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    cr_assert_str_eq(dc->pApplicationInfo->pApplicationName, "demo");
    cr_assert_null(dc->pApplicationInfo->pEngineName);
    cr_assert_eq(dc->pApplicationInfo->applicationVersion, 7);
    cr_assert_eq(dc->pApplicationInfo->apiVersion, VK_API_VERSION_1_3);
    cr_assert_eq(dc->enabledLayerCount, 0);
    cr_assert_null(dc->ppEnabledLayerNames);
    cr_assert_eq(dc->enabledExtensionCount, 2);
    cr_assert_str_eq(dc->ppEnabledExtensionNames[0], "VK_KHR_surface");
    cr_assert_str_eq(dc->ppEnabledExtensionNames[1], "VK_EXT_debug_utils");
    const VkDebugUtilsMessengerCreateInfoEXT *dd = dc->pNext;
    cr_assert_eq(dd->sType, VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    cr_assert_eq(dd->messageSeverity, VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT);
    cr_assert_null(dd->pfnUserCallback, "function pointers decode as NULL");
    cr_assert_eq((uintptr_t)dd->pUserData, 0x1234);
    cr_assert_null(dd->pNext);
    cr_assert_eq((uintptr_t)*d->pInstance, 0xABCDEF);
    cr_assert_eq(d->result, VK_SUCCESS);
    free(b.data);
    free(d);
    rt_arena_finish(&arena);
}

static VkGraphicsPipelineCreateInfo *sample_pipeline(void)
{
    static const uint32_t spec_data[2] = {11, 22};
    static const VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
    static const VkSpecializationInfo spec = {2, entries, sizeof spec_data, spec_data};
    static const VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = (VkShaderModule)(uintptr_t)5, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = (VkShaderModule)(uintptr_t)6, .pName = "fs_main", .pSpecializationInfo = &spec},
    };
    static const VkVertexInputAttributeDescription attrs[2] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                               {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8}};
    static const VkVertexInputBindingDescription binding = {0, 12, VK_VERTEX_INPUT_RATE_VERTEX};
    static const VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &binding, .vertexAttributeDescriptionCount = 2,
        .pVertexAttributeDescriptions = attrs};
    static const VkSampleMask mask = 0xA5;
    static const VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT, .pSampleMask = &mask, .minSampleShading = 0.25f};
    static const VkPipelineColorBlendAttachmentState att = {.blendEnable = VK_TRUE, .colorWriteMask = 0xF};
    static const VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO, .attachmentCount = 1,
        .pAttachments = &att, .blendConstants = {0.5f, 1.0f, 0.0f, -2.0f}};
    static const VkDynamicState dyn_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    static const VkPipelineDynamicStateCreateInfo dyn = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, .dynamicStateCount = 2,
        .pDynamicStates = dyn_states};
    static const VkFormat color_formats[1] = {VK_FORMAT_B8G8R8A8_SRGB};
    static const VkPipelineRenderingCreateInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO, .colorAttachmentCount = 1,
        .pColorAttachmentFormats = color_formats, .depthAttachmentFormat = VK_FORMAT_D32_SFLOAT};
    static VkGraphicsPipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .pNext = &rendering, .stageCount = 2,
        .pStages = stages, .pVertexInputState = &vi, .pMultisampleState = &ms, .pColorBlendState = &cb,
        .pDynamicState = &dyn, .layout = (VkPipelineLayout)(uintptr_t)9, .basePipelineIndex = -1};
    return &ci;
}

static struct buf encode_pipeline_call(VkPipeline *out)
{
    struct rt_vk_args_vkCreateGraphicsPipelines args = {
        (VkDevice)(uintptr_t)1, VK_NULL_HANDLE, 1, sample_pipeline(), NULL, out, VK_SUCCESS};
    return encode_call(RT_VK_CMD_vkCreateGraphicsPipelines, &args);
}

Test(vkcodec, graphics_pipeline_by_hand)
{
    VkPipeline pipe = (VkPipeline)(uintptr_t)77;
    struct buf b = encode_pipeline_call(&pipe);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_vk_args_vkCreateGraphicsPipelines *d = decode_call(b, RT_VK_CMD_vkCreateGraphicsPipelines, &arena);
    cr_assert_eq(d->createInfoCount, 1);
    const VkGraphicsPipelineCreateInfo *p = d->pCreateInfos;
    cr_assert_eq(p->stageCount, 2);
    cr_assert_str_eq(p->pStages[1].pName, "fs_main");
    cr_assert_eq((uintptr_t)p->pStages[1].module, 6);
    cr_assert_null(p->pStages[0].pSpecializationInfo);
    const VkSpecializationInfo *spec = p->pStages[1].pSpecializationInfo;
    cr_assert_eq(spec->mapEntryCount, 2);
    cr_assert_eq(spec->pMapEntries[1].offset, 4);
    cr_assert_eq(spec->dataSize, 8);
    cr_assert_eq(((const uint32_t *)spec->pData)[1], 22);
    cr_assert_eq(p->pVertexInputState->pVertexAttributeDescriptions[1].format, VK_FORMAT_R8G8B8A8_UNORM);
    cr_assert_eq(p->pVertexInputState->pVertexBindingDescriptions[0].stride, 12);
    cr_assert_null(p->pInputAssemblyState);
    cr_assert_eq(p->pMultisampleState->rasterizationSamples, VK_SAMPLE_COUNT_4_BIT);
    cr_assert_eq(*p->pMultisampleState->pSampleMask, 0xA5);
    cr_assert_float_eq(p->pMultisampleState->minSampleShading, 0.25f, 0.0f);
    cr_assert_float_eq(p->pColorBlendState->blendConstants[3], -2.0f, 0.0f);
    cr_assert_eq(p->pColorBlendState->pAttachments[0].colorWriteMask, 0xF);
    cr_assert_eq(p->pDynamicState->pDynamicStates[1], VK_DYNAMIC_STATE_SCISSOR);
    cr_assert_eq(p->basePipelineIndex, -1);
    const VkPipelineRenderingCreateInfo *r = p->pNext;
    cr_assert_eq(r->sType, VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO);
    cr_assert_eq(r->pColorAttachmentFormats[0], VK_FORMAT_B8G8R8A8_SRGB);
    cr_assert_eq(r->depthAttachmentFormat, VK_FORMAT_D32_SFLOAT);
    cr_assert_eq((uintptr_t)d->pPipelines[0], 77);
    free(b.data);
    free(d);
    rt_arena_finish(&arena);
}

Test(vkcodec, selector_union_and_bitfields_by_hand)
{
    VkAccelerationStructureInstanceKHR inst = {.instanceCustomIndex = 0x123456, .mask = 0xAB,
                                               .instanceShaderBindingTableRecordOffset = 0x654321,
                                               .flags = 0x5, .accelerationStructureReference = 99};
    inst.transform.matrix[2][3] = 4.5f;
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_struct(&enc, RT_VK_STRUCT_VkAccelerationStructureInstanceKHR, &inst);
    cr_assert(rt_ok(&s), "%s", s.msg);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_dec dec;
    rt_dec_init(&dec, enc.data, enc.size, &arena);
    VkAccelerationStructureInstanceKHR out;
    s = rt_vk_decode_struct(&dec, RT_VK_STRUCT_VkAccelerationStructureInstanceKHR, &out);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(out.instanceCustomIndex, 0x123456);
    cr_assert_eq(out.mask, 0xAB);
    cr_assert_eq(out.instanceShaderBindingTableRecordOffset, 0x654321);
    cr_assert_eq(out.flags, 0x5);
    cr_assert_eq(out.accelerationStructureReference, 99);
    cr_assert_float_eq(out.transform.matrix[2][3], 4.5f, 0.0f);

    /* VkDescriptorGetInfoEXT: `type` selects which union member travels. */
    VkDescriptorAddressInfoEXT addr = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_ADDRESS_INFO_EXT,
                                       .address = 0x1000, .range = 256, .format = VK_FORMAT_UNDEFINED};
    VkDescriptorGetInfoEXT gi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_GET_INFO_EXT,
                                 .type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .data.pUniformBuffer = &addr};
    rt_enc_reset(&enc);
    s = rt_vk_encode_struct(&enc, RT_VK_STRUCT_VkDescriptorGetInfoEXT, &gi);
    cr_assert(rt_ok(&s), "%s", s.msg);
    rt_dec_init(&dec, enc.data, enc.size, &arena);
    VkDescriptorGetInfoEXT go;
    s = rt_vk_decode_struct(&dec, RT_VK_STRUCT_VkDescriptorGetInfoEXT, &go);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_neq(go.data.pUniformBuffer, &addr, "decoded into the arena, not the original");
    cr_assert_eq(go.data.pUniformBuffer->address, 0x1000);
    cr_assert_eq(go.data.pUniformBuffer->range, 256);
    rt_enc_finish(&enc);
    rt_arena_finish(&arena);
}

/* ---- printer, handle walk, names, dispatch ------------------------------ */

static uint64_t number_handles(void *user, VkObjectType type, uint64_t id)
{
    (void)type;
    uint64_t *seen = user; /* seen[0] = count, then ids in order of first appearance */
    for (uint64_t i = 1; i <= seen[0]; i++)
        if (seen[i] == id)
            return i;
    seen[++seen[0]] = id;
    return seen[0];
}

Test(vkcodec, prints_a_call)
{
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 65536,
                             .usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VkBuffer buffer = (VkBuffer)(uintptr_t)0x5000;
    struct rt_vk_args_vkCreateBuffer args = {(VkDevice)(uintptr_t)0x9000, &ci, NULL, &buffer, VK_SUCCESS};
    uint64_t seen[8] = {0};
    struct rt_vk_print_opts opts = {number_handles, seen, 0};
    char text[512];
    size_t n = rt_vk_format_call(text, sizeof text, RT_VK_CMD_vkCreateBuffer, &args, &opts);
    cr_assert_eq(n, strlen(text));
    cr_assert_str_eq(text, "vkCreateBuffer(device=<VkDevice 1>, pCreateInfo={sType=BUFFER_CREATE_INFO, "
                           "pNext=NULL, flags=0, size=65536, usage=TRANSFER_DST|VERTEX_BUFFER, "
                           "sharingMode=EXCLUSIVE, queueFamilyIndexCount=0, pQueueFamilyIndices=NULL}, "
                           "pAllocator=NULL, pBuffer=<VkBuffer 2>) = VK_SUCCESS");
    char small[16];
    cr_assert_eq(rt_vk_format_call(small, sizeof small, RT_VK_CMD_vkCreateBuffer, &args, NULL), strlen(text) + 8,
              "ids 36864 and 20480 printed raw without a namer");
    cr_assert_eq(strlen(small), 15, "truncated, still NUL-terminated");
}

struct walked {
    unsigned inputs, outputs;
    VkObjectType last_out;
};

static void count_handle(void *user, VkObjectType type, void *slot, bool output)
{
    struct walked *w = user;
    (void)slot;
    if (output) {
        w->outputs++;
        w->last_out = type;
    } else {
        w->inputs++;
    }
}

Test(vkcodec, walks_handles_in_and_out)
{
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = (VkCommandPool)(uintptr_t)3, .commandBufferCount = 3};
    VkCommandBuffer cbs[3] = {0};
    struct rt_vk_args_vkAllocateCommandBuffers args = {(VkDevice)(uintptr_t)1, &ai, cbs, VK_SUCCESS};
    struct walked w = {0};
    rt_vk_walk_handles(RT_VK_CMD_vkAllocateCommandBuffers, &args, count_handle, &w);
    cr_assert_eq(w.inputs, 2, "device and commandPool");
    cr_assert_eq(w.outputs, 3);
    cr_assert_eq(w.last_out, VK_OBJECT_TYPE_COMMAND_BUFFER);
}

Test(vkcodec, names_and_levels)
{
    enum rt_vk_cmd c;
    cr_assert(rt_vk_cmd_from_name("vkCmdDrawIndirectCountKHR", &c));
    cr_assert_str_eq(rt_vk_cmd_name(c), "vkCmdDrawIndirectCountKHR");
    cr_assert_eq(rt_vk_commands[c].alias_of, RT_VK_CMD_vkCmdDrawIndirectCount);
    cr_assert_not(rt_vk_cmd_from_name("vkNoSuchCommand", &c));
    cr_assert_eq(rt_vk_cmd_level(RT_VK_CMD_vkCreateInstance), RT_VK_LEVEL_GLOBAL);
    cr_assert_eq(rt_vk_cmd_level(RT_VK_CMD_vkEnumeratePhysicalDevices), RT_VK_LEVEL_INSTANCE);
    cr_assert_eq(rt_vk_cmd_level(RT_VK_CMD_vkGetPhysicalDeviceProperties), RT_VK_LEVEL_PHYSICAL_DEVICE);
    cr_assert_eq(rt_vk_cmd_level(RT_VK_CMD_vkCmdDraw), RT_VK_LEVEL_DEVICE);
    cr_assert_eq(rt_vk_cmd_level(RT_VK_CMD_vkQueueSubmit), RT_VK_LEVEL_DEVICE);
    cr_assert_not_null(rt_vk_commands[RT_VK_CMD_vkUpdateDescriptorSetWithTemplate].excluded);
    cr_assert_eq(rt_vk_args_size(RT_VK_CMD_vkUpdateDescriptorSetWithTemplate), 0);
}

static bool has(enum rt_vk_cmd cmd, unsigned flag) { return (rt_vk_cmd_flags(cmd) & flag) != 0; }

Test(vkcodec, command_flags)
{
    cr_assert(has(RT_VK_CMD_vkGetPhysicalDeviceProperties, RT_VK_CMD_FLAG_QUERY));
    cr_assert_not(has(RT_VK_CMD_vkGetPhysicalDeviceProperties, RT_VK_CMD_FLAG_ENUMERATE));
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkEnumeratePhysicalDevices),
                 RT_VK_CMD_FLAG_QUERY | RT_VK_CMD_FLAG_ENUMERATE, "a query of handles makes none");
    cr_assert(has(RT_VK_CMD_vkGetPhysicalDeviceQueueFamilyProperties, RT_VK_CMD_FLAG_ENUMERATE));
    cr_assert(has(RT_VK_CMD_vkGetPipelineCacheData, RT_VK_CMD_FLAG_ENUMERATE), "a size_t count");
    cr_assert_not(has(RT_VK_CMD_vkGetQueryPoolResults, RT_VK_CMD_FLAG_ENUMERATE), "dataSize is an input");
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkCreateBuffer), RT_VK_CMD_FLAG_CREATES);
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkAllocateCommandBuffers), RT_VK_CMD_FLAG_CREATES);
    cr_assert_not(has(RT_VK_CMD_vkGetDeviceQueue, RT_VK_CMD_FLAG_CREATES), "a queue exists already");
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkDestroyBuffer), RT_VK_CMD_FLAG_DESTROYS);
    cr_assert(has(RT_VK_CMD_vkReleasePerformanceConfigurationINTEL, RT_VK_CMD_FLAG_DESTROYS));
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkQueueSubmit), RT_VK_CMD_FLAG_SUBMITS);
    cr_assert(has(RT_VK_CMD_vkQueueSubmit2KHR, RT_VK_CMD_FLAG_SUBMITS));
    cr_assert(has(RT_VK_CMD_vkQueueBindSparse, RT_VK_CMD_FLAG_SUBMITS));
    cr_assert_not(has(RT_VK_CMD_vkQueuePresentKHR, RT_VK_CMD_FLAG_SUBMITS));
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkWaitForFences), RT_VK_CMD_FLAG_WAITS);
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkGetFenceStatus), RT_VK_CMD_FLAG_QUERY | RT_VK_CMD_FLAG_WAITS);
    cr_assert(has(RT_VK_CMD_vkInvalidateMappedMemoryRanges, RT_VK_CMD_FLAG_WAITS));
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkMapMemory), RT_VK_CMD_FLAG_MAPS);
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_vkCmdDraw), 0);
    cr_assert_eq(rt_vk_cmd_flags(RT_VK_CMD_COUNT), 0);
}

/* rt_vk_cmd_flags reads a dense table of its own (the hot path's); the
 * commands' descriptors carry the same bits for everything else. */
Test(vkcodec, the_dense_flags_table_agrees_with_every_command_descriptor)
{
    size_t flagged = 0;
    for (int c = 0; c < RT_VK_CMD_COUNT; c++) {
        enum rt_vk_cmd cmd = (enum rt_vk_cmd)c;
        cr_assert_eq(rt_vk_cmd_flags(cmd), rt_vk_commands[c].flags, "%s", rt_vk_cmd_name(cmd));
        flagged += rt_vk_commands[c].flags != 0;
    }
    cr_assert_gt(flagged, 100, "the descriptors carry flags at all");
}

/* capture's vkGetDeviceProcAddr resolves these through the instance. */
Test(vkcodec, device_commands_of_instance_extensions)
{
    static const char *const want[] = {
        "vkSetDebugUtilsObjectNameEXT", "vkSetDebugUtilsObjectTagEXT", "vkQueueBeginDebugUtilsLabelEXT",
        "vkQueueEndDebugUtilsLabelEXT", "vkQueueInsertDebugUtilsLabelEXT", "vkCmdBeginDebugUtilsLabelEXT",
        "vkCmdEndDebugUtilsLabelEXT", "vkCmdInsertDebugUtilsLabelEXT"};
    size_t flagged = 0;
    for (int c = 0; c < RT_VK_CMD_COUNT; c++)
        flagged += has((enum rt_vk_cmd)c, RT_VK_CMD_FLAG_INSTANCE_EXTENSION);
    cr_assert_eq(flagged, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum rt_vk_cmd c;
        cr_assert(rt_vk_cmd_from_name(want[i], &c));
        cr_assert(has(c, RT_VK_CMD_FLAG_INSTANCE_EXTENSION), "%s", want[i]);
    }
    cr_assert_not(has(RT_VK_CMD_vkCreateDebugUtilsMessengerEXT, RT_VK_CMD_FLAG_INSTANCE_EXTENSION), "instance level");
    cr_assert_not(has(RT_VK_CMD_vkCmdDebugMarkerBeginEXT, RT_VK_CMD_FLAG_INSTANCE_EXTENSION), "a device extension");
}

Test(vkcodec, feature_structs)
{
    cr_assert(rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceFeatures2].features);
    cr_assert(rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceVulkan12Features].features);
    cr_assert(rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceDescriptorIndexingFeatures].features);
    cr_assert_not(rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceFeatures].features, "not in a pNext chain");
    cr_assert_not(rt_vk_structs[RT_VK_STRUCT_VkValidationFeaturesEXT].features, "an instance struct");
    cr_assert_not(rt_vk_structs[RT_VK_STRUCT_VkDeviceGroupDeviceCreateInfo].features);
    cr_assert_not(rt_vk_structs[RT_VK_STRUCT_VkPhysicalDeviceVulkan12Properties].features);
}

/* replay skips queries that make no handle: the flag must stay exactly the
 * API's naming rule it replaced, or replays would change. */
Test(vkcodec, query_flag_is_the_get_and_enumerate_commands)
{
    for (int c = 0; c < RT_VK_CMD_COUNT; c++) {
        const char *name = rt_vk_cmd_name((enum rt_vk_cmd)c);
        bool named = !strncmp(name, "vkGet", 5) || !strncmp(name, "vkEnumerate", 11);
        cr_assert_eq(has((enum rt_vk_cmd)c, RT_VK_CMD_FLAG_QUERY), named, "%s", name);
    }
}

static bool in_category(enum rt_vk_cmd cmd, unsigned cat) { return (rt_vk_cmd_categories(cmd) & cat) != 0; }

static const char *pipeline_cache_name(enum rt_vk_cmd cmd)
{
    int i = rt_vk_commands[cmd].pipeline_cache_arg;
    return i < 0 ? NULL : rt_vk_commands[cmd].args->members[i].name;
}

/* Every pipeline-creating command, the NV ray-tracing one too, uses replay's
 * cache and belongs to the create-pipeline delay: one rule, no lists. */
Test(vkcodec, pipeline_creation_category)
{
    static const enum rt_vk_cmd want[] = {RT_VK_CMD_vkCreateGraphicsPipelines, RT_VK_CMD_vkCreateComputePipelines,
                                          RT_VK_CMD_vkCreateRayTracingPipelinesKHR,
                                          RT_VK_CMD_vkCreateRayTracingPipelinesNV};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert(in_category(want[i], RT_VK_CMD_CAT_CREATES_PIPELINE), "%s", rt_vk_cmd_name(want[i]));
        cr_assert_str_eq(pipeline_cache_name(want[i]), "pipelineCache");
        cr_assert_eq(rt_vk_cmd_event(want[i]), RT_VK_EVENT_CREATE_PIPELINE);
    }
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCreateRayTracingPipelinesKHR].pipeline_cache_arg, 2, "after deferredOperation");
    cr_assert_not(in_category(RT_VK_CMD_vkDestroyPipeline, RT_VK_CMD_CAT_CREATES_PIPELINE));
    cr_assert_not(in_category(RT_VK_CMD_vkCreatePipelineCache, RT_VK_CMD_CAT_CREATES_PIPELINE));
    for (int c = 0; c < RT_VK_CMD_COUNT; c++) {
        bool creates = in_category((enum rt_vk_cmd)c, RT_VK_CMD_CAT_CREATES_PIPELINE);
        cr_assert_eq(creates, rt_vk_cmd_event((enum rt_vk_cmd)c) == RT_VK_EVENT_CREATE_PIPELINE, "%s",
                     rt_vk_cmd_name((enum rt_vk_cmd)c));
        cr_assert_eq(creates, rt_vk_commands[c].pipeline_cache_arg >= 0, "%s", rt_vk_cmd_name((enum rt_vk_cmd)c));
    }
}

Test(vkcodec, transfer_reads)
{
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyImageToBuffer].transfer_dst, RT_VK_TRANSFER_BUFFER);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyImageToBuffer2KHR].transfer_dst, RT_VK_TRANSFER_BUFFER);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyBuffer2].transfer_dst, RT_VK_TRANSFER_BUFFER);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyBufferToImage].transfer_dst, RT_VK_TRANSFER_IMAGE);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdBlitImage2KHR].transfer_dst, RT_VK_TRANSFER_IMAGE);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyImage].transfer_dst, RT_VK_TRANSFER_IMAGE);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdResolveImage2KHR].transfer_dst, RT_VK_TRANSFER_NONE, "not a copy");
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdUpdateBuffer].transfer_dst, RT_VK_TRANSFER_NONE, "reads no resource");
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdCopyQueryPoolResults].transfer_dst, RT_VK_TRANSFER_NONE);
    size_t reads = 0;
    for (int c = 0; c < RT_VK_CMD_COUNT; c++)
        reads += rt_vk_commands[c].transfer_dst != RT_VK_TRANSFER_NONE;
    cr_assert_eq(reads, 15, "five copies and blits, each also as ...2 and ...2KHR");
}

Test(vkcodec, delay_events_and_categories)
{
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkCreateShaderModule), RT_VK_EVENT_CREATE_SHADER);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkQueueSubmit2KHR), RT_VK_EVENT_SUBMIT);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkQueueBindSparse), RT_VK_EVENT_SUBMIT);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkQueuePresentKHR), RT_VK_EVENT_PRESENT);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkAcquireNextImage2KHR), RT_VK_EVENT_ACQUIRE);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkMapMemory), RT_VK_EVENT_MAP);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkGetDescriptorSetHostMappingVALVE), -1, "maps no device memory");
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkWaitSemaphoresKHR), RT_VK_EVENT_WAIT);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkDeviceWaitIdle), RT_VK_EVENT_WAIT);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkGetFenceStatus), -1, "asks, does not wait");
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_vkCmdDraw), -1);
    cr_assert_eq(rt_vk_cmd_event(RT_VK_CMD_COUNT), -1);
    cr_assert(in_category(RT_VK_CMD_vkQueueSubmit, RT_VK_CMD_CAT_EXECUTES));
    cr_assert(in_category(RT_VK_CMD_vkQueueSubmit2KHR, RT_VK_CMD_CAT_EXECUTES));
    cr_assert_not(in_category(RT_VK_CMD_vkQueueBindSparse, RT_VK_CMD_CAT_EXECUTES), "binds, runs nothing");
    cr_assert(in_category(RT_VK_CMD_vkQueuePresentKHR, RT_VK_CMD_CAT_PRESENTS));
    cr_assert(in_category(RT_VK_CMD_vkAcquireNextImageKHR, RT_VK_CMD_CAT_ACQUIRES));
    cr_assert(in_category(RT_VK_CMD_vkBeginCommandBuffer, RT_VK_CMD_CAT_BEGINS_RECORDING));
    cr_assert(in_category(RT_VK_CMD_vkGetQueryPoolResults, RT_VK_CMD_CAT_READS_QUERIES));
    cr_assert_not(in_category(RT_VK_CMD_vkCmdCopyQueryPoolResults, RT_VK_CMD_CAT_READS_QUERIES), "recorded");
    cr_assert_eq(rt_vk_cmd_categories(RT_VK_CMD_COUNT), 0);
    /* what --dump-draws and --skip-draws number (docs/FORMATS.md 7.1) */
    static const enum rt_vk_cmd draws[] = {
        RT_VK_CMD_vkCmdDraw, RT_VK_CMD_vkCmdDrawIndexed, RT_VK_CMD_vkCmdDrawIndirect, RT_VK_CMD_vkCmdDispatch,
        RT_VK_CMD_vkCmdClearColorImage, RT_VK_CMD_vkCmdClearAttachments, RT_VK_CMD_vkCmdCopyImage,
        RT_VK_CMD_vkCmdCopyBufferToImage, RT_VK_CMD_vkCmdBlitImage2KHR, RT_VK_CMD_vkCmdResolveImage,
        RT_VK_CMD_vkCmdFillBuffer, RT_VK_CMD_vkCmdDrawIndexedIndirectCount, RT_VK_CMD_vkCmdDrawMeshTasksEXT};
    for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++)
        cr_assert(in_category(draws[i], RT_VK_CMD_CAT_DRAWS), "%s", rt_vk_cmd_name(draws[i]));
    static const enum rt_vk_cmd not_draws[] = {
        RT_VK_CMD_vkCmdBeginRenderPass, RT_VK_CMD_vkCmdEndRendering, RT_VK_CMD_vkCmdBindPipeline,
        RT_VK_CMD_vkCmdPipelineBarrier, RT_VK_CMD_vkCmdWriteTimestamp, RT_VK_CMD_vkCmdResetQueryPool,
        RT_VK_CMD_vkCmdCopyQueryPoolResults, RT_VK_CMD_vkCmdInsertDebugUtilsLabelEXT,
        RT_VK_CMD_vkCmdDebugMarkerEndEXT, RT_VK_CMD_vkQueueSubmit, RT_VK_CMD_vkCmdExecuteCommands};
    for (size_t i = 0; i < sizeof not_draws / sizeof not_draws[0]; i++)
        cr_assert_not(in_category(not_draws[i], RT_VK_CMD_CAT_DRAWS), "%s", rt_vk_cmd_name(not_draws[i]));
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCreateQueryPool].object_type, VK_OBJECT_TYPE_QUERY_POOL);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkDestroyQueryPool].object_type, VK_OBJECT_TYPE_QUERY_POOL);
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR].object_type,
                 VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, "an aliased handle type");
    cr_assert_eq(rt_vk_commands[RT_VK_CMD_vkCmdDraw].object_type, 0);
}

static const char *destroyed_name(enum rt_vk_cmd cmd)
{
    int i = rt_vk_cmd_destroyed_arg(cmd);
    return i < 0 ? NULL : rt_vk_commands[cmd].args->members[i].name;
}

Test(vkcodec, destroyed_argument)
{
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkDestroyBuffer), "buffer");
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkDestroyDevice), "device");
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkFreeMemory), "memory");
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkFreeCommandBuffers), "pCommandBuffers");
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkFreeDescriptorSets), "pDescriptorSets");
    cr_assert_str_eq(destroyed_name(RT_VK_CMD_vkDestroySamplerYcbcrConversionKHR), "ycbcrConversion");
    cr_assert_null(destroyed_name(RT_VK_CMD_vkCreateBuffer));
    cr_assert_eq(rt_vk_cmd_destroyed_arg(RT_VK_CMD_COUNT), -1);
    for (int c = 0; c < RT_VK_CMD_COUNT; c++) {
        bool destroys = has((enum rt_vk_cmd)c, RT_VK_CMD_FLAG_DESTROYS);
        const struct rt_vk_struct_desc *args = rt_vk_commands[c].args;
        int i = rt_vk_cmd_destroyed_arg((enum rt_vk_cmd)c);
        if (!destroys || !args || !args->members)
            continue;
        cr_assert_geq(i, 0, "%s", rt_vk_cmd_name((enum rt_vk_cmd)c));
        cr_assert_eq(args->members[i].kind, RT_VK_KIND_HANDLE, "%s", rt_vk_cmd_name((enum rt_vk_cmd)c));
    }
}

static void fake_fn(void) {}

static PFN_vkVoidFunction VKAPI_PTR fake_gdpa(VkDevice device, const char *name)
{
    (void)device;
    return strcmp(name, "vkCmdDrawIndirectCountKHR") == 0 ? NULL : fake_fn;
}

static PFN_vkVoidFunction VKAPI_PTR fake_gipa(VkInstance instance, const char *name)
{
    (void)name;
    return instance ? fake_fn : (strncmp(name, "vkCreateInstance", 16) == 0 ? fake_fn : NULL);
}

Test(vkcodec, dispatch_tables_load)
{
    struct rt_vk_instance_dispatch it;
    rt_vk_instance_dispatch_load(&it, fake_gipa, VK_NULL_HANDLE);
    cr_assert_eq((PFN_vkVoidFunction)it.vkCreateInstance, fake_fn);
    cr_assert_null(it.vkEnumeratePhysicalDevices, "instance commands need an instance");
    rt_vk_instance_dispatch_load(&it, fake_gipa, (VkInstance)(uintptr_t)1);
    cr_assert_eq((PFN_vkVoidFunction)it.vkEnumeratePhysicalDevices, fake_fn);
    struct rt_vk_device_dispatch dt;
    rt_vk_device_dispatch_load(&dt, fake_gdpa, (VkDevice)(uintptr_t)1);
    cr_assert_eq((PFN_vkVoidFunction)dt.vkCmdDraw, fake_fn);
    cr_assert_eq((PFN_vkVoidFunction)dt.vkCmdDrawIndirectCountKHR, fake_fn, "alias borrows its target");
}

/* ---- hostile input ------------------------------------------------------ */

Test(vkcodec, every_prefix_fails_cleanly)
{
    VkPipeline pipe = (VkPipeline)(uintptr_t)77;
    struct buf b = encode_pipeline_call(&pipe);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 1u << 20);
    struct rt_vk_args_vkCreateGraphicsPipelines out;
    for (size_t n = 0; n < b.size; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* a fresh buffer, so ASan sees any overread */
        memcpy(copy, b.data, n);
        struct rt_dec dec;
        rt_dec_init(&dec, copy, n, &arena);
        rt_status s = rt_vk_decode_call(&dec, RT_VK_CMD_vkCreateGraphicsPipelines, &out);
        cr_assert_eq(s.code, RT_ERR_BAD_INPUT, "prefix %zu of %zu accepted", n, b.size);
        cr_assert_null(strchr(s.msg, '\n'));
        free(copy);
        rt_arena_reset(&arena);
        rt_status_free(&s);
    }
    free(b.data);
    rt_arena_finish(&arena);
}

static rt_status decode_instance_bytes(const uint8_t *data, size_t size, struct rt_arena *arena)
{
    struct rt_vk_args_vkCreateInstance out;
    struct rt_dec dec;
    rt_dec_init(&dec, data, size, arena);
    return rt_vk_decode_call(&dec, RT_VK_CMD_vkCreateInstance, &out);
}

Test(vkcodec, absurd_counts_and_bad_markers_fail)
{
    const char *exts[] = {"a"};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .enabledExtensionCount = 1,
                               .ppEnabledExtensionNames = exts};
    VkInstance inst = VK_NULL_HANDLE;
    struct rt_vk_args_vkCreateInstance args = {&ci, NULL, &inst, VK_SUCCESS};
    struct buf b = encode_call(RT_VK_CMD_vkCreateInstance, &args);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    rt_status s = decode_instance_bytes(b.data, b.size, &arena);
    cr_assert(rt_ok(&s), "%s", s.msg);
    /* Layout: 1 (present) 4 sType, 1 (end of pNext), 4 flags, 1 (no app info), 4 layer count,
     * 1 (no layers), 4 extension count, 1 (present), then the u32 array count. */
    size_t count_at = 1 + 4 + 1 + 4 + 1 + 4 + 1 + 4 + 1;
    cr_assert_eq(b.data[count_at], 1);
    uint8_t *bad = malloc(b.size);
    memcpy(bad, b.data, b.size);
    memcpy(bad + count_at, "\xF0\xFF\xFF\x7F", 4); /* both the count and its member claim 2^31 */
    memcpy(bad + count_at - 1 - 4, "\xF0\xFF\xFF\x7F", 4);
    rt_status_free(&s);
    s = decode_instance_bytes(bad, b.size, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert_lt(arena.used, 4096, "no allocation sized by the absurd count");
    memcpy(bad, b.data, b.size);
    bad[count_at] = 2; /* the array disagrees with enabledExtensionCount */
    rt_status_free(&s);
    s = decode_instance_bytes(bad, b.size, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "length member"), "%s", s.msg);
    memcpy(bad, b.data, b.size);
    bad[0] = 7; /* presence byte neither 0 nor 1 */
    rt_status_free(&s);
    s = decode_instance_bytes(bad, b.size, &arena);
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    free(bad);
    free(b.data);
    rt_arena_finish(&arena);
    rt_status_free(&s);
}

Test(vkcodec, unknown_stype_is_counted_not_dropped_silently)
{
    VkExternalMemoryBufferCreateInfo ext = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                            .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkBaseInStructure unknown = {.sType = (VkStructureType)0x7FFFFF00, .pNext = (const void *)&ext};
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &unknown, .size = 4};
    VkBuffer buffer = VK_NULL_HANDLE;
    struct rt_vk_args_vkCreateBuffer args = {(VkDevice)(uintptr_t)1, &ci, NULL, &buffer, VK_SUCCESS};
    struct rt_vk_stats enc_stats = {0}, dec_stats = {0};
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call_stats(&enc, RT_VK_CMD_vkCreateBuffer, &args, &enc_stats);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(enc_stats.unknown_stypes, 1);
    cr_assert_eq(enc_stats.last_unknown_stype, 0x7FFFFF00);
    struct rt_arena arena;
    rt_arena_init(&arena, 0, 0);
    struct rt_dec dec;
    rt_dec_init(&dec, enc.data, enc.size, &arena);
    struct rt_vk_args_vkCreateBuffer out;
    s = rt_vk_decode_call_stats(&dec, RT_VK_CMD_vkCreateBuffer, &out, &dec_stats);
    cr_assert(rt_ok(&s), "%s", s.msg);
    cr_assert_eq(dec_stats.unknown_stypes, 1);
    const VkExternalMemoryBufferCreateInfo *d = out.pCreateInfo->pNext;
    cr_assert_eq(d->sType, VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, "chain goes on without it");
    cr_assert_eq(d->handleTypes, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    cr_assert_null(d->pNext);
    rt_enc_finish(&enc);
    rt_arena_finish(&arena);
}
