/* tests/unit/test_replay_multi_draw.c — review R5: zink calls
 * vkCmdDrawMultiEXT with 12-byte records (stride 12, element 8 bytes). A
 * trace whose capture ignored the stride holds the first drawCount * 8 bytes
 * of that array; the replay passed stride 12 with them and the driver read
 * past the decoded array (garbage geometry, a replay that never ended). The
 * replay now recovers the draws inside the recorded bytes and fails by name
 * on the ones past them. */
#include <criterion/criterion.h>
#include <string.h>

#include "replay_internal.h"

/* What zink's draws look like in memory: {start, count, index_bias} each. */
static void zink_records(uint32_t *words, uint32_t draws)
{
    for (uint32_t i = 0; i < draws; i++) {
        words[3 * i] = 6 * i;
        words[3 * i + 1] = 6;
        words[3 * i + 2] = 0;
    }
}

Test(replay_multi_draw, draws_inside_the_recorded_bytes_are_recovered)
{
    uint32_t strided[24];
    zink_records(strided, 8);
    VkMultiDrawInfoEXT recorded[8]; /* an old capture kept 8 * 8 bytes */
    memcpy(recorded, strided, sizeof recorded);
    uint32_t kept = replay_multi_draw_recover(recorded, 8, 12, sizeof recorded[0]);
    cr_assert_eq(kept, 5); /* draw 5 starts at byte 60: past the 64 recorded */
    for (uint32_t i = 0; i < kept; i++) {
        cr_assert_eq(recorded[i].firstVertex, 6 * i, "draw %u", i);
        cr_assert_eq(recorded[i].vertexCount, 6, "draw %u", i);
    }
}

Test(replay_multi_draw, a_dense_array_is_left_alone)
{
    VkMultiDrawInfoEXT draws[3] = {{0, 3}, {3, 3}, {6, 3}};
    VkMultiDrawInfoEXT before[3];
    memcpy(before, draws, sizeof draws);
    cr_assert_eq(replay_multi_draw_recover(draws, 3, sizeof draws[0], sizeof draws[0]), 3);
    cr_assert_eq(memcmp(draws, before, sizeof draws), 0);
}

Test(replay_multi_draw, a_draw_past_the_recorded_bytes_fails_by_name)
{
    uint32_t strided[24];
    zink_records(strided, 8);
    VkMultiDrawInfoEXT recorded[8];
    memcpy(recorded, strided, sizeof recorded);
    struct rt_replay_result result = {0};
    struct replay r = {.result = &result, .call_seq = 5726};
    struct rt_vk_args_vkCmdDrawMultiEXT a = {.drawCount = 8, .pVertexInfo = recorded, .instanceCount = 1,
                                             .stride = 12};
    rt_status s = replay_cmd_draw_multi(&r, &a, 0);
    cr_assert(!rt_ok(&s));
    cr_assert_eq(s.code, RT_ERR_BAD_INPUT);
    cr_assert(strstr(s.msg, "call 5726: vkCmdDrawMultiEXT") && strstr(s.msg, "draws 6-8 are lost"), "%s",
              s.msg);
    rt_status_free(&s);
}
