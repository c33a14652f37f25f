/*
 * tests/integration/make_needs_trace.c — writes a tiny trace that creates an
 * instance and a device which needs something lavapipe lacks:
 *   make_needs_trace OUT feature    enables the depthBounds feature
 *   make_needs_trace OUT extension  enables VK_NV_ray_tracing
 *   make_needs_trace OUT family     uses queue family 5
 *   make_needs_trace OUT sparse     (fine) family 0 was graphics+compute+transfer+sparse at capture
 *   make_needs_trace OUT instance-extension  the instance enables an extension no loader has
 *   make_needs_trace OUT display-extension   (fine) it enables VK_NV_acquire_winrt_display, which a
 *                                            headless replay leaves out when the loader lacks it
 * `retrace replay` must refuse the first three with exit 4 and name what is
 * missing, and replay the last. For strip-unsupported (strip.sh):
 *   make_needs_trace OUT strip-unused   enables VK_NV_ray_tracing, VK_NV_ray_tracing_motion_blur (its
 *                                       features struct chained) and depthBounds, never uses them
 *   make_needs_trace OUT strip-command  ... then calls vkCompileDeferredNV
 *   make_needs_trace OUT strip-shader   ... then makes a shader declaring SPV_NV_ray_tracing
 *   make_needs_trace OUT strip-query    ... then asks vkGetPhysicalDeviceFeatures2 with the motion
 *                                       blur features chained (zink's second screen does): fine
 */
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "vkcodec.h"

static int append(struct rt_trace_writer *w, enum rt_vk_cmd cmd, const void *args, int32_t result)
{
    struct rt_enc enc;
    rt_enc_init(&enc);
    rt_status s = rt_vk_encode_call(&enc, cmd, args);
    if (rt_ok(&s))
        s = rt_trace_writer_call(w, (uint32_t)cmd, 1, (uint64_t)(int64_t)result, enc.data, enc.size, NULL);
    rt_enc_finish(&enc);
    if (!rt_ok(&s))
        fprintf(stderr, "make_needs_trace: %s\n", s.msg);
    return rt_ok(&s) ? 0 : 1;
}

/* A call that uses what strip-unsupported leaves out of the device. */
static int use_stripped(struct rt_trace_writer *w, VkDevice device, const char *kind)
{
    if (!strcmp(kind, "strip-command")) {
        struct rt_vk_args_vkCompileDeferredNV a = {device, (VkPipeline)(uintptr_t)0x4000, 0, VK_SUCCESS};
        return append(w, RT_VK_CMD_vkCompileDeferredNV, &a, VK_SUCCESS);
    }
    if (!strcmp(kind, "strip-shader")) {
        /* SPIR-V: header, OpCapability Shader, OpExtension "SPV_NV_ray_tracing" */
        static const uint32_t code[] = {0x07230203, 0x00010000, 0, 1, 0, 0x00020011, 1, 0x0006000a,
                                        0x5f565053, 0x725f564e, 0x745f7961, 0x69636172, 0x0000676e};
        VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                         .codeSize = sizeof code, .pCode = code};
        VkShaderModule module = (VkShaderModule)(uintptr_t)0x5000;
        struct rt_vk_args_vkCreateShaderModule a = {device, &info, NULL, &module, VK_SUCCESS};
        return append(w, RT_VK_CMD_vkCreateShaderModule, &a, VK_SUCCESS);
    }
    if (!strcmp(kind, "strip-query")) {
        static VkPhysicalDeviceRayTracingMotionBlurFeaturesNV blur = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_MOTION_BLUR_FEATURES_NV, .rayTracingMotionBlur = 1};
        VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &blur};
        struct rt_vk_args_vkGetPhysicalDeviceFeatures2 a = {(VkPhysicalDevice)(uintptr_t)0x2000, &features};
        return append(w, RT_VK_CMD_vkGetPhysicalDeviceFeatures2, &a, 0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *names[RT_VK_CMD_COUNT];
    for (int i = 0; i < RT_VK_CMD_COUNT; i++)
        names[i] = rt_vk_cmd_name((enum rt_vk_cmd)i);
    struct rt_trace_writer_options o = {.path = argv[1], .command_names = names, .command_count = RT_VK_CMD_COUNT,
                                        .application_name = "needs"};
    struct rt_trace_writer *w;
    rt_status s = rt_trace_writer_create(&o, &w);
    if (!rt_ok(&s))
        return 5;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance = (VkInstance)(uintptr_t)0x1000;
    VkPhysicalDevice gpu = (VkPhysicalDevice)(uintptr_t)0x2000;
    VkDevice device = (VkDevice)(uintptr_t)0x3000;
    uint32_t count = 1;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                     .pQueuePriorities = &priority};
    VkPhysicalDeviceFeatures features = {.depthBounds = VK_TRUE};
    const char *extensions[] = {"VK_NV_ray_tracing", "VK_NV_ray_tracing_motion_blur"};
    VkPhysicalDeviceRayTracingMotionBlurFeaturesNV blur = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_MOTION_BLUR_FEATURES_NV, .rayTracingMotionBlur = VK_TRUE};
    bool strip = !strncmp(argv[2], "strip-", 6);
    bool want_feature = !strcmp(argv[2], "feature") || strip;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue, .pEnabledFeatures = want_feature ? &features : NULL,
                              .enabledExtensionCount = want_feature && !strip ? 0 : strip ? 2 : 1,
                              .ppEnabledExtensionNames = extensions, .pNext = strip ? &blur : NULL};
    bool family = !strcmp(argv[2], "family"), sparse = !strcmp(argv[2], "sparse");
    bool inst_missing = !strcmp(argv[2], "instance-extension"), display = !strcmp(argv[2], "display-extension");
    const char *inst_extensions[] = {"VK_KHR_surface",
                                     inst_missing ? "VK_RETRACE_missing_instance_extension" : "VK_NV_acquire_winrt_display"};
    if (inst_missing || display) {
        ici.enabledExtensionCount = 2;
        ici.ppEnabledExtensionNames = inst_extensions;
    }
    if (family || sparse || inst_missing || display) {
        dci.pEnabledFeatures = NULL;
        dci.enabledExtensionCount = 0;
        queue.queueFamilyIndex = family ? 5 : 0;
    }
    VkQueueFamilyProperties families[6] = {{0}};
    for (int i = 0; i < 6; i++)
        families[i] = (VkQueueFamilyProperties){VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT |
                                                VK_QUEUE_SPARSE_BINDING_BIT, 1, 64, {1, 1, 1}};
    uint32_t family_count = 6;
    struct rt_vk_args_vkGetPhysicalDeviceQueueFamilyProperties a0 = {gpu, &family_count, families};
    struct rt_vk_args_vkCreateInstance a1 = {&ici, NULL, &instance, VK_SUCCESS};
    struct rt_vk_args_vkEnumeratePhysicalDevices a2 = {instance, &count, &gpu, VK_SUCCESS};
    struct rt_vk_args_vkCreateDevice a3 = {gpu, &dci, NULL, &device, VK_SUCCESS};
    int bad = append(w, RT_VK_CMD_vkCreateInstance, &a1, VK_SUCCESS) +
              append(w, RT_VK_CMD_vkEnumeratePhysicalDevices, &a2, VK_SUCCESS) +
              append(w, RT_VK_CMD_vkGetPhysicalDeviceQueueFamilyProperties, &a0, 0) +
              append(w, RT_VK_CMD_vkCreateDevice, &a3, VK_SUCCESS) + use_stripped(w, device, argv[2]);
    s = rt_trace_writer_close(w, NULL);
    return bad || !rt_ok(&s) ? 5 : 0;
}
