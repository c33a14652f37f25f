/* replay/workarounds/no_anisotropy.c — no-anisotropy: samplers filter
 * without anisotropy (a classic source of differences between drivers). */
#include "workaround.h"

#define ID RT_WA_NO_ANISOTROPY

struct counters {
    uint64_t samplers_changed, features_disabled;
};
REPLAY_WA_COUNTERS(struct counters, ID)

static rt_status adjust_device(struct replay *r, VkDeviceCreateInfo *info)
{
    VkPhysicalDeviceFeatures *base = replay_device_base_features(r, info);
    if (!base)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    if (base->samplerAnisotropy)
        counters(r)->features_disabled++;
    base->samplerAnisotropy = VK_FALSE;
    return rt_ok_status();
}

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    const struct rt_vk_command_desc *d = &rt_vk_commands[cmd];
    if (!(d->flags & RT_VK_CMD_FLAG_CREATES) || d->object_type != VK_OBJECT_TYPE_SAMPLER)
        return rt_ok_status();
    /* vkCreateSampler is the one command that makes samplers */
    VkSamplerCreateInfo *info = (VkSamplerCreateInfo *)((struct rt_vk_args_vkCreateSampler *)args)->pCreateInfo;
    if (info->anisotropyEnable)
        counters(r)->samplers_changed++;
    info->anisotropyEnable = VK_FALSE;
    return rt_ok_status();
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, samplers_changed),
                                                        REPLAY_WA_COUNTER(struct counters, features_disabled)};

const struct replay_workaround replay_wa_no_anisotropy = {
    .info = {"no-anisotropy", "sample without anisotropic filtering (a classic source of driver differences)",
             "device creation: samplerAnisotropy is not enabled; vkCreateSampler: anisotropyEnable is\n"
             "cleared, so every sampler filters as the plain min/mag filters say."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .adjust_device = adjust_device,
    .before_call = before_call,
};
