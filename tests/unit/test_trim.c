/* tests/unit/test_trim.c — which calls a snapshot keeps (trim/calls.c,
 * objects.c) and the layouts submitted work leaves (layouts.c), from calls
 * built by hand: no device, no replay. */
#include <criterion/criterion.h>
#include <string.h>

#include "trim_internal.h"

#define H(type, id) ((type)(uintptr_t)(id))

static struct trim_state t;
static struct rt_trim_result result;
static uint64_t seq;

static void setup(void)
{
    memset(&t, 0, sizeof t);
    trim_state_init(&t);
    t.result = &result;
    seq = 0;
}

static void teardown(void)
{
    trim_state_finish(&t);
}

static uint64_t call(enum rt_vk_cmd cmd, const void *args)
{
    struct rt_trace_packet p = {.type = RT_TRACE_PACKET_CALL, .seq = seq++};
    rt_status s = trim_track_call(&t, &p, cmd, args);
    cr_assert(rt_ok(&s), "%s", s.msg);
    return p.seq;
}

static bool kept(uint64_t s)
{
    for (uint32_t i = 0; i < t.record_count; i++)
        if (t.records[i].seq == s)
            return t.records[i].kept;
    return false;
}

static uint64_t make_device(void)
{
    VkInstance instance = H(VkInstance, 0x10);
    VkPhysicalDevice gpu = H(VkPhysicalDevice, 0x20);
    VkDevice device = H(VkDevice, 0x30);
    uint32_t one = 1;
    struct rt_vk_args_vkCreateInstance ci = {.pInstance = &instance};
    call(RT_VK_CMD_vkCreateInstance, &ci);
    struct rt_vk_args_vkEnumeratePhysicalDevices ep = {.instance = instance, .pPhysicalDeviceCount = &one,
                                                        .pPhysicalDevices = &gpu};
    call(RT_VK_CMD_vkEnumeratePhysicalDevices, &ep);
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    struct rt_vk_args_vkCreateDevice cd = {.physicalDevice = gpu, .pCreateInfo = &info, .pDevice = &device};
    return call(RT_VK_CMD_vkCreateDevice, &cd);
}

TestSuite(trim, .init = setup, .fini = teardown);

/* glmark2 through zink calls vkDestroyBuffer(device, VK_NULL_HANDLE). */
Test(trim, destroying_a_null_handle_ends_nothing)
{
    uint64_t created = make_device();
    struct rt_vk_args_vkDestroyBuffer db = {.device = H(VkDevice, 0x30), .buffer = VK_NULL_HANDLE};
    call(RT_VK_CMD_vkDestroyBuffer, &db);
    trim_state_close(&t);
    cr_assert(kept(created), "vkCreateDevice dropped: the null buffer's destroy ended the device");
}

/* A pipeline keeps the shader module it was made from, destroyed or not. */
Test(trim, a_pipeline_keeps_its_destroyed_shader_module)
{
    make_device();
    VkDevice device = H(VkDevice, 0x30);
    VkShaderModule module = H(VkShaderModule, 0x40);
    VkPipeline pipeline = H(VkPipeline, 0x50);
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    struct rt_vk_args_vkCreateShaderModule cm = {.device = device, .pCreateInfo = &mi, .pShaderModule = &module};
    uint64_t made = call(RT_VK_CMD_vkCreateShaderModule, &cm);
    VkComputePipelineCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .module = module, .pName = "main"}};
    struct rt_vk_args_vkCreateComputePipelines cp = {.device = device, .createInfoCount = 1, .pCreateInfos = &pi,
                                                      .pPipelines = &pipeline};
    uint64_t pipe = call(RT_VK_CMD_vkCreateComputePipelines, &cp);
    struct rt_vk_args_vkDestroyShaderModule dm = {.device = device, .shaderModule = module};
    uint64_t destroyed = call(RT_VK_CMD_vkDestroyShaderModule, &dm);
    VkShaderModule other = H(VkShaderModule, 0x41);
    cm.pShaderModule = &other;
    uint64_t unused = call(RT_VK_CMD_vkCreateShaderModule, &cm);
    struct rt_vk_args_vkDestroyShaderModule du = {.device = device, .shaderModule = other};
    uint64_t unused_gone = call(RT_VK_CMD_vkDestroyShaderModule, &du);
    trim_state_close(&t);
    cr_assert(kept(made) && kept(pipe) && kept(destroyed));
    cr_assert(!kept(unused) && !kept(unused_gone), "a module made and destroyed before A leaves nothing");
}

static void cmdbuf(VkCommandPool *pool, VkCommandBuffer *cb)
{
    VkDevice device = H(VkDevice, 0x30);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    struct rt_vk_args_vkCreateCommandPool cp = {.device = device, .pCreateInfo = &pi, .pCommandPool = pool};
    call(RT_VK_CMD_vkCreateCommandPool, &cp);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = *pool,
                                      .commandBufferCount = 1};
    struct rt_vk_args_vkAllocateCommandBuffers ac = {.device = device, .pAllocateInfo = &ai, .pCommandBuffers = cb};
    call(RT_VK_CMD_vkAllocateCommandBuffers, &ac);
}

static uint64_t begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = flags};
    struct rt_vk_args_vkBeginCommandBuffer b = {.commandBuffer = cb, .pBeginInfo = &bi};
    return call(RT_VK_CMD_vkBeginCommandBuffer, &b);
}

Test(trim, only_a_command_buffers_last_recording_is_kept)
{
    make_device();
    VkCommandPool pool = H(VkCommandPool, 0x60);
    VkCommandBuffer cb = H(VkCommandBuffer, 0x70);
    cmdbuf(&pool, &cb);
    uint64_t first = begin(cb, 0);
    struct rt_vk_args_vkEndCommandBuffer e = {.commandBuffer = cb};
    uint64_t first_end = call(RT_VK_CMD_vkEndCommandBuffer, &e);
    uint64_t second = begin(cb, 0);
    uint64_t second_end = call(RT_VK_CMD_vkEndCommandBuffer, &e);
    trim_state_close(&t);
    cr_assert(!kept(first) && !kept(first_end), "the first recording was begun again: it goes");
    cr_assert(kept(second) && kept(second_end), "the last recording is what a submit after A runs");
}

Test(trim, a_one_time_recording_goes_once_submitted)
{
    make_device();
    VkCommandPool pool = H(VkCommandPool, 0x60);
    VkCommandBuffer cb = H(VkCommandBuffer, 0x70);
    cmdbuf(&pool, &cb);
    uint64_t b = begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    struct rt_vk_args_vkQueueSubmit qs = {.queue = H(VkQueue, 0x80), .submitCount = 1, .pSubmits = &si};
    uint64_t submit = call(RT_VK_CMD_vkQueueSubmit, &qs);
    trim_state_close(&t);
    cr_assert(!kept(b) && !kept(submit));
}

/* A barrier changes the layout when its command buffer runs, not when recorded. */
Test(trim, layouts_change_when_submitted)
{
    make_device();
    VkDevice device = H(VkDevice, 0x30);
    VkImage image = H(VkImage, 0x90);
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                            .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {4, 4, 1}, .mipLevels = 2,
                            .arrayLayers = 2, .samples = VK_SAMPLE_COUNT_1_BIT};
    struct rt_vk_args_vkCreateImage ci = {.device = device, .pCreateInfo = &ii, .pImage = &image};
    call(RT_VK_CMD_vkCreateImage, &ci);
    VkCommandPool pool = H(VkCommandPool, 0x60);
    VkCommandBuffer cb = H(VkCommandBuffer, 0x70);
    cmdbuf(&pool, &cb);
    begin(cb, 0);
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                              .newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, .image = image,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_REMAINING_MIP_LEVELS, 1, 1}};
    struct rt_vk_args_vkCmdPipelineBarrier pb = {.commandBuffer = cb, .imageMemoryBarrierCount = 1,
                                                 .pImageMemoryBarriers = &b};
    call(RT_VK_CMD_vkCmdPipelineBarrier, &pb);
    const struct trim_image *img = &t.images[t.objects[trim_object_find(&t, VK_OBJECT_TYPE_IMAGE, 0x90)].info];
    cr_assert_eq(img->layouts[1 * 2 + 1], VK_IMAGE_LAYOUT_UNDEFINED, "recorded, not run yet");
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    struct rt_vk_args_vkQueueSubmit qs = {.queue = H(VkQueue, 0x80), .submitCount = 1, .pSubmits = &si};
    call(RT_VK_CMD_vkQueueSubmit, &qs);
    cr_assert_eq(img->layouts[1 * 2 + 1], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, "mip 1 layer 1");
    cr_assert_eq(img->layouts[0 * 2 + 1], VK_IMAGE_LAYOUT_UNDEFINED, "mip 0 is outside the barrier");
    cr_assert_eq(img->layouts[1 * 2 + 0], VK_IMAGE_LAYOUT_UNDEFINED, "layer 0 is outside the barrier");
}

/* vkResetDescriptorPool frees the pool's sets: their updates go with them. */
Test(trim, a_pool_reset_drops_its_sets_updates)
{
    make_device();
    VkDevice device = H(VkDevice, 0x30);
    VkDescriptorPool pool = H(VkDescriptorPool, 0xa0);
    VkDescriptorSetLayout layout = H(VkDescriptorSetLayout, 0xb0);
    VkDescriptorSet set = H(VkDescriptorSet, 0xc0);
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1};
    struct rt_vk_args_vkCreateDescriptorPool cp = {.device = device, .pCreateInfo = &pi, .pDescriptorPool = &pool};
    call(RT_VK_CMD_vkCreateDescriptorPool, &cp);
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    struct rt_vk_args_vkCreateDescriptorSetLayout cl = {.device = device, .pCreateInfo = &li, .pSetLayout = &layout};
    call(RT_VK_CMD_vkCreateDescriptorSetLayout, &cl);
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = pool, .descriptorSetCount = 1, .pSetLayouts = &layout};
    struct rt_vk_args_vkAllocateDescriptorSets as = {.device = device, .pAllocateInfo = &ai, .pDescriptorSets = &set};
    uint64_t alloc1 = call(RT_VK_CMD_vkAllocateDescriptorSets, &as);
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set};
    struct rt_vk_args_vkUpdateDescriptorSets ud = {.device = device, .descriptorWriteCount = 1,
                                                    .pDescriptorWrites = &w};
    uint64_t update1 = call(RT_VK_CMD_vkUpdateDescriptorSets, &ud);
    struct rt_vk_args_vkResetDescriptorPool rp = {.device = device, .descriptorPool = pool};
    uint64_t reset = call(RT_VK_CMD_vkResetDescriptorPool, &rp);
    uint64_t alloc2 = call(RT_VK_CMD_vkAllocateDescriptorSets, &as); /* the same handle again */
    uint64_t update2 = call(RT_VK_CMD_vkUpdateDescriptorSets, &ud);
    trim_state_close(&t);
    cr_assert(!kept(alloc1) && !kept(update1) && !kept(reset));
    cr_assert(kept(alloc2) && kept(update2));
}

static uint64_t image_of(VkFormat format, VkImageCreateFlags flags, VkImageLayout layout)
{
    make_device();
    VkDevice device = H(VkDevice, 0x30);
    VkImage image = H(VkImage, 0x90);
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = flags,
                            .imageType = VK_IMAGE_TYPE_2D, .format = format, .extent = {4, 4, 1}, .mipLevels = 1,
                            .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT};
    struct rt_vk_args_vkCreateImage ci = {.device = device, .pCreateInfo = &ii, .pImage = &image};
    call(RT_VK_CMD_vkCreateImage, &ci);
    VkCommandPool pool = H(VkCommandPool, 0x60);
    VkCommandBuffer cb = H(VkCommandBuffer, 0x70);
    cmdbuf(&pool, &cb);
    begin(cb, 0);
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                              .newLayout = layout, .image = image,
                              .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    struct rt_vk_args_vkCmdPipelineBarrier pb = {.commandBuffer = cb, .imageMemoryBarrierCount = 1,
                                                 .pImageMemoryBarriers = &b};
    call(RT_VK_CMD_vkCmdPipelineBarrier, &pb);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
    struct rt_vk_args_vkQueueSubmit qs = {.queue = H(VkQueue, 0x80), .submitCount = 1, .pSubmits = &si};
    return call(RT_VK_CMD_vkQueueSubmit, &qs);
}

/* What a snapshot cannot carry is refused by name, not dropped. */
Test(trim, planar_and_sparse_images_alive_at_a_are_refused)
{
    image_of(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    rt_status s = trim_check_contents(&t, 7);
    cr_assert_eq(s.code, RT_ERR_CANNOT_REPLAY);
    cr_assert(strstr(s.msg, "frame 7") && strstr(s.msg, "planar") && strstr(s.msg, "0x90"), "%s", s.msg);
    rt_status_free(&s);
    teardown();
    setup();
    image_of(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_CREATE_SPARSE_BINDING_BIT, VK_IMAGE_LAYOUT_GENERAL);
    s = trim_check_contents(&t, 2);
    cr_assert_eq(s.code, RT_ERR_CANNOT_REPLAY);
    cr_assert(strstr(s.msg, "sparse"), "%s", s.msg);
    rt_status_free(&s);
}

Test(trim, a_planar_image_without_content_and_plain_images_pass)
{
    image_of(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 0, VK_IMAGE_LAYOUT_UNDEFINED);
    rt_status s = trim_check_contents(&t, 3);
    cr_assert(rt_ok(&s), "%s", s.msg);
    teardown();
    setup();
    image_of(VK_FORMAT_R8G8B8A8_UNORM, 0, VK_IMAGE_LAYOUT_GENERAL);
    s = trim_check_contents(&t, 3);
    cr_assert(rt_ok(&s), "%s", s.msg);
}
