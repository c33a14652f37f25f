/* tests/integration/one_device.h — the instance, device and queue 0 that the
 * threaded test programs (mt_submit, busy_threads) work on, through volk.
 * Owns nothing but that set-up; each program keeps its own work. */
#ifndef RT_TEST_ONE_DEVICE_H
#define RT_TEST_ONE_DEVICE_H

#include <volk.h>

/** Creates an API 1.1 instance named APP_NAME, a device on the first physical
 * device with one queue of family 0, and loads both into volk. Returns 0, or
 * 4 (the tests' "no Vulkan") when any step fails. */
int one_device_open(const char *app_name, VkPhysicalDeviceMemoryProperties *memory,
                    VkDevice *device, VkQueue *queue);

#endif
