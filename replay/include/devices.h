/*
 * replay/include/devices.h — the Vulkan devices a replay can run on, as `--device`
 * names them.
 *
 * Owns: listing the physical devices (index, name, vendor, driver, API
 * version) through volk, and the one rule by which `--device INDEX|NAME`
 * picks a device (a whole number is an index in enumeration order, anything
 * else a substring of the device name). For `retrace devices` and for
 * naming the choices when `--device` matches nothing.
 * Must not touch: the replay engine's state; it creates and destroys its own
 * instance.
 */
#ifndef RT_REPLAY_DEVICES_H
#define RT_REPLAY_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct rt_replay_device {
    uint32_t index;        /* what --device INDEX names */
    char name[256];        /* VkPhysicalDeviceProperties::deviceName */
    uint32_t vendor_id, device_id, device_type, api_version, driver_version;
    char driver_name[256]; /* VkPhysicalDeviceDriverProperties, when the device has them */
    char driver_info[256];
};

/* The key goldens and expectations are stored under: "VVVV:DDDD/DRIVER"
 * (vendor and device id in hex, then the driver's version as it names it:
 * driverInfo, else driverVersion in decimal). The report's device_key. */
void rt_replay_device_key(uint32_t vendor_id, uint32_t device_id, const char *driver_info, uint32_t driver_version,
                          char *out, size_t size);

/**
 * Every physical device the loader offers, in enumeration order (the order
 * replay's --device INDEX counts in). *list_out is malloc'd; *count_out may
 * be 0. RT_ERR_CANNOT_REPLAY when there is no Vulkan loader or instance.
 */
rt_status rt_replay_list_devices(struct rt_replay_device **list_out,
                                 uint32_t *count_out) RT_MUST_CHECK;

/** Whether `--device WANT` names device INDEX called NAME. */
bool rt_replay_device_matches(const char *want, uint32_t index, const char *name);

/** Whether replay picks device INDEX (NAME, VENDOR_ID): the one `--device
 * WANT` names, or without WANT one of the capture's vendor (CAPTURED_VENDOR,
 * NULL when the trace names no device). Replay takes the first device this
 * holds for, else the first device. */
bool rt_replay_device_chosen(const char *want, uint32_t index, const char *name, uint32_t vendor_id,
                             const uint32_t *captured_vendor);

/** "NVIDIA", "AMD", "Intel", "Mesa" (software), ... or NULL for an unknown vendor id. */
const char *rt_replay_vendor_name(uint32_t vendor_id);

/** "1.3.230" (VK_API_VERSION_* packing) into OUT. */
void rt_replay_version_text(uint32_t version, char out[32]);

#endif
