/* tests/unit/test_replay_verify.c — --verify keeps the type of live query
 * pools only: a destroyed pool's entry goes, so pools made and destroyed
 * over a long replay do not pile up and a reused handle starts afresh. */
#include <criterion/criterion.h>

#include "replay_internal.h"

static void create_pool(struct replay *r, uint64_t handle, VkQueryType type)
{
    VkQueryPool pool = (VkQueryPool)(uintptr_t)handle;
    VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = type, .queryCount = 1};
    struct rt_vk_args_vkCreateQueryPool a = {.pCreateInfo = &info, .pQueryPool = &pool, .result = VK_SUCCESS};
    replay_verify_before_call(r, RT_VK_CMD_vkCreateQueryPool, &a, VK_SUCCESS);
    rt_status s = replay_verify_after_call(r, RT_VK_CMD_vkCreateQueryPool, &a, 1);
    cr_assert(rt_ok(&s));
}

static void destroy_pool(struct replay *r, uint64_t handle)
{
    struct rt_vk_args_vkDestroyQueryPool a = {.queryPool = (VkQueryPool)(uintptr_t)handle};
    replay_verify_before_call(r, RT_VK_CMD_vkDestroyQueryPool, &a, 0);
    rt_status s = replay_verify_after_call(r, RT_VK_CMD_vkDestroyQueryPool, &a, 2);
    cr_assert(rt_ok(&s));
}

Test(replay_verify, a_destroyed_query_pool_is_forgotten)
{
    struct rt_replay_options opts = {.verify = true};
    struct rt_replay_result result = {0};
    struct replay r = {.opts = &opts, .result = &result};
    for (uint64_t i = 1; i <= 100; i++) {
        create_pool(&r, 0x1000 + i, i % 2 ? VK_QUERY_TYPE_TIMESTAMP : VK_QUERY_TYPE_OCCLUSION);
        destroy_pool(&r, 0x1000 + i);
    }
    cr_assert_eq(replay_verify_query_pools(&r), 0, "%zu destroyed pools are still kept",
                 replay_verify_query_pools(&r));
    create_pool(&r, 0x2000, VK_QUERY_TYPE_OCCLUSION);
    cr_assert_eq(replay_verify_query_pools(&r), 1);
    replay_verify_finish(&r);
}
