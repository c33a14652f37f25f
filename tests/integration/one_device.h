/* tests/integration/one_device.h — the instance, device and queue 0 that the
 * small test programs (mt_submit, busy_threads, api10, driver_crash) work
 * on, through volk. Owns nothing but that set-up; each program keeps its own
 * work. */
#ifndef RT_TEST_ONE_DEVICE_H
#define RT_TEST_ONE_DEVICE_H

#include <stdbool.h>
#include <volk.h>

/** What a program asks of its instance and device. */
struct one_device_want {
    const char *app_name;
    uint32_t api_version;   /* VK_API_VERSION_1_0 or _1_1 */
    bool features;          /* pass pEnabledFeatures (shaderInt16 when the device has it) */
};

struct one_device {
    VkInstance instance;
    VkPhysicalDevice gpu;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    VkQueue queue; /* queue 0 of family 0 */
};

/** Loads volk, creates the instance and a device on the first physical
 * device with one queue of family 0, and loads both into volk. Returns 0,
 * or 4 (the tests' "no Vulkan") when any step fails. */
int one_device_create(const struct one_device_want *want, struct one_device *out);

/** Destroys the device and the instance (after the program's own objects). */
void one_device_destroy(struct one_device *d);

/** one_device_create for API 1.1 without features, keeping only what the
 * threaded programs use. */
int one_device_open(const char *app_name, VkPhysicalDeviceMemoryProperties *memory,
                    VkDevice *device, VkQueue *queue);

#endif
