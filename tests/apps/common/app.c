/* tests/apps/common/app.c — rt_app_main: instance, validation, device, lifecycle. */
#include "app.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Counts validation (and performance) warnings and errors: any of them fails
 * the run under --validate. The loader's own general notices are printed but
 * not counted: they are about the machine (an ICD that cannot load), not us. */
static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    struct rt_app *app = user;
    bool counted = (type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) != 0;
    if (counted)
        app->validation_messages++;
    fprintf(stderr, "rt_app_%s: %s %s: %s\n", app->desc->name,
            counted ? "validation" : "loader",
            sev >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
            data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
}

static bool has_layer(const char *name)
{
    VkLayerProperties layers[64];
    uint32_t count = 64;
    if (vkEnumerateInstanceLayerProperties(&count, layers) < 0)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(layers[i].layerName, name) == 0)
            return true;
    return false;
}

/* The validation chain: sync validation on, and a messenger in pNext so that
 * instance creation and destruction are reported too. */
struct validation_chain {
    VkDebugUtilsMessengerCreateInfoEXT messenger;
    VkValidationFeatureEnableEXT enables[1];
    VkValidationFeaturesEXT features;
};

static void validation_chain_init(struct validation_chain *v, struct rt_app *app)
{
    v->messenger = (VkDebugUtilsMessengerCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
        .pUserData = app,
    };
    v->enables[0] = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    v->features = (VkValidationFeaturesEXT){
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .pNext = &v->messenger,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = v->enables,
    };
}

static rt_status create_instance(struct rt_app *app)
{
    if (volkInitialize() != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot load the Vulkan loader (libvulkan.so.1)");
    if (volkGetInstanceVersion() < VK_API_VERSION_1_3)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "the Vulkan loader is older than 1.3");
    const char *exts[3];
    uint32_t ext_count = 0;
    if (!app->args.offscreen) {
        exts[ext_count++] = VK_KHR_SURFACE_EXTENSION_NAME;
        exts[ext_count++] = VK_KHR_XCB_SURFACE_EXTENSION_NAME;
    }
    const char *layer = VALIDATION_LAYER;
    struct validation_chain v;
    validation_chain_init(&v, app);
    if (app->args.validate) {
        if (!has_layer(VALIDATION_LAYER))
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "--validate: %s is not installed",
                             VALIDATION_LAYER);
        exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }
    VkApplicationInfo app_info = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = app->desc->name,
        .applicationVersion = 1,
        .pEngineName = "rt_app",
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = app->args.validate ? &v.features : NULL,
        .pApplicationInfo = &app_info,
        .enabledLayerCount = app->args.validate ? 1 : 0,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&info, NULL, &app->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_EXTENSION_NOT_PRESENT ||
        r == VK_ERROR_LAYER_NOT_PRESENT)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreateInstance: %s", rt_app_result_name(r));
    RT_VK(r);
    volkLoadInstanceOnly(app->instance);
    if (app->args.validate)
        RT_VK(vkCreateDebugUtilsMessengerEXT(app->instance, &v.messenger, NULL,
                                             &app->messenger));
    return rt_ok_status();
}

/* A queue family that does graphics and compute; -1 for none. */
static int pick_family(VkPhysicalDevice pd)
{
    VkQueueFamilyProperties fams[16];
    uint32_t count = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, fams);
    VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (uint32_t i = 0; i < count; i++)
        if ((fams[i].queueFlags & want) == want)
            return (int)i;
    return -1;
}

/* Prefers a discrete GPU, then integrated, then anything (lavapipe). */

/* Whether PHYSICAL offers the device extension NAME. */
static bool has_device_extension(VkPhysicalDevice physical, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(physical, NULL, &n, NULL) != VK_SUCCESS || !n)
        return false;
    VkExtensionProperties *props = calloc(n, sizeof *props);
    bool found = false;
    if (props && vkEnumerateDeviceExtensionProperties(physical, NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

static rt_status pick_device(struct rt_app *app)
{
    VkPhysicalDevice devs[16];
    uint32_t count = 16;
    VkResult r = vkEnumeratePhysicalDevices(app->instance, &count, devs);
    if (r < 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkEnumeratePhysicalDevices: %s",
                         rt_app_result_name(r));
    int best_score = -1;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        int family = pick_family(devs[i]);
        if (p.apiVersion < VK_API_VERSION_1_3 || family < 0)
            continue;
        int score = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 3
                    : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
                                                                             : 1;
        if (score > best_score) {
            best_score = score;
            app->physical = devs[i];
            app->props = p;
            app->queue_family = (uint32_t)family;
        }
    }
    if (best_score < 0)
        return rt_errorf(RT_ERR_CANNOT_REPLAY,
                         "no Vulkan 1.3 device with a graphics+compute queue");
    vkGetPhysicalDeviceMemoryProperties(app->physical, &app->mem_props);
    return rt_ok_status();
}

/* Every VkBool32 member true in WANT must be true in HAVE. The feature structs
 * are, after their sType/pNext header, nothing but VkBool32 members. */
static rt_status check_bools(const char *what, const void *want, const void *have,
                             size_t offset, size_t size)
{
    const VkBool32 *w = (const VkBool32 *)((const char *)want + offset);
    const VkBool32 *h = (const VkBool32 *)((const char *)have + offset);
    for (size_t i = 0; i < (size - offset) / sizeof(VkBool32); i++)
        if (w[i] && !h[i])
            return rt_errorf(RT_ERR_CANNOT_REPLAY, "the device lacks %s feature #%zu", what, i);
    return rt_ok_status();
}

/* Adds to WANT each member true in OPTIONAL that HAVE supports. */
static void add_optional(void *want, const void *optional, const void *have, size_t offset,
                         size_t size)
{
    VkBool32 *w = (VkBool32 *)((char *)want + offset);
    const VkBool32 *o = (const VkBool32 *)((const char *)optional + offset);
    const VkBool32 *h = (const VkBool32 *)((const char *)have + offset);
    for (size_t i = 0; i < (size - offset) / sizeof(VkBool32); i++)
        if (o[i] && h[i])
            w[i] = VK_TRUE;
}

struct feature_chain {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features f11;
    VkPhysicalDeviceVulkan12Features f12;
    VkPhysicalDeviceVulkan13Features f13;
};

static void chain_init(struct feature_chain *c)
{
    memset(c, 0, sizeof *c);
    c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    c->f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    c->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    c->f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    c->f2.pNext = &c->f11;
    c->f11.pNext = &c->f12;
    c->f12.pNext = &c->f13;
}

/* Copies the app's requests into WANT, keeping WANT's own sType and pNext
 * (apps declare bare structs of booleans). */
#define COPY_FEATURES(dst, src)                          \
    do {                                                 \
        if (src) {                                       \
            VkStructureType type = (dst).sType;          \
            void *next = (dst).pNext;                    \
            (dst) = *(src);                              \
            (dst).sType = type;                          \
            (dst).pNext = next;                          \
        }                                                \
    } while (0)

static rt_status create_device(struct rt_app *app)
{
    const struct rt_app_desc *d = app->desc;
    struct feature_chain have, want;
    chain_init(&have);
    chain_init(&want);
    vkGetPhysicalDeviceFeatures2(app->physical, &have.f2);
    if (d->features10)
        want.f2.features = *d->features10;
    COPY_FEATURES(want.f11, d->features11);
    COPY_FEATURES(want.f12, d->features12);
    COPY_FEATURES(want.f13, d->features13);
    if (d->sync2) {
        want.f12.timelineSemaphore = VK_TRUE;
        want.f13.synchronization2 = VK_TRUE;
    }
    if (d->optional12)
        add_optional(&want.f12, d->optional12, &have.f12,
                     offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge),
                     sizeof want.f12);
    app->enabled12 = want.f12;
    RT_TRY(check_bools("Vulkan 1.0", &want.f2.features, &have.f2.features, 0,
                       sizeof(VkPhysicalDeviceFeatures)));
    RT_TRY(check_bools("Vulkan 1.1", &want.f11, &have.f11,
                       offsetof(VkPhysicalDeviceVulkan11Features, storageBuffer16BitAccess),
                       sizeof want.f11));
    RT_TRY(check_bools("Vulkan 1.2", &want.f12, &have.f12,
                       offsetof(VkPhysicalDeviceVulkan12Features, samplerMirrorClampToEdge),
                       sizeof want.f12));
    RT_TRY(check_bools("Vulkan 1.3", &want.f13, &have.f13,
                       offsetof(VkPhysicalDeviceVulkan13Features, robustImageAccess),
                       sizeof want.f13));
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = app->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    const char *exts[2];
    uint32_t ext_count = 0;
    if (!app->args.offscreen)
        exts[ext_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    if (app->desc->optional_extension && has_device_extension(app->physical, app->desc->optional_extension)) {
        exts[ext_count++] = app->desc->optional_extension;
        app->optional_extension = true;
    }
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &want.f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateDevice(app->physical, &info, NULL, &app->device);
    if (r == VK_ERROR_EXTENSION_NOT_PRESENT || r == VK_ERROR_FEATURE_NOT_PRESENT)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreateDevice: %s", rt_app_result_name(r));
    RT_VK(r);
    volkLoadDevice(app->device);
    vkGetDeviceQueue(app->device, app->queue_family, 0, &app->queue);
    return rt_ok_status();
}

static int exit_code(const struct rt_app *app, rt_status st)
{
    if (!rt_ok(&st)) {
        fprintf(stderr, "rt_app_%s: %s\n", app->desc->name, st.msg);
        if (st.code == RT_ERR_USAGE)
            fprintf(stderr, "rt_app_%s: try --help\n", app->desc->name);
        return (int)st.code;
    }
    if (app->validation_messages > 0) {
        fprintf(stderr, "rt_app_%s: %u validation message(s)\n", app->desc->name,
                app->validation_messages);
        return 1;
    }
    return 0;
}

static void destroy_all(struct rt_app *app, void *user)
{
    if (app->device) {
        vkDeviceWaitIdle(app->device);
        app->desc->teardown(app, user);
        rt_app_target_finish(app);
        vkDestroyDevice(app->device, NULL);
    }
    if (app->messenger)
        vkDestroyDebugUtilsMessengerEXT(app->instance, app->messenger, NULL);
    if (app->instance)
        vkDestroyInstance(app->instance, NULL);
}

int rt_app_main(const struct rt_app_desc *desc, void *user, int argc, char **argv)
{
    struct rt_app app = {.desc = desc};
    rt_status st = rt_app_parse_args(desc, argc, argv, &app.args);
    if (rt_ok(&st) && app.args.help) {
        rt_app_print_help(desc);
        return 0;
    }
    if (rt_ok(&st))
        st = create_instance(&app);
    if (rt_ok(&st))
        st = pick_device(&app);
    if (rt_ok(&st))
        st = create_device(&app);
    if (rt_ok(&st))
        st = rt_app_target_init(&app);
    if (rt_ok(&st))
        st = desc->setup(&app, user);
    if (rt_ok(&st))
        st = rt_app_run_frames(&app, user);
    destroy_all(&app, user);
    int code = exit_code(&app, st);
    if (code == 0)
        printf("rt_app_%s: %u frames on %s, %s\n", desc->name, app.args.frames,
               app.props.deviceName, app.args.offscreen ? "offscreen" : "swapchain");
    return code;
}
