/* tests/unit/test_replay_resources.c — replay's per-object records follow
 * object lifetimes: a handle reused after a destroy (forced here: the same
 * value made twice) starts from a fresh record. */
#include <criterion/criterion.h>

#include "resources.h"

Test(replay_resources, a_reused_image_handle_is_not_the_old_image)
{
    struct replay_resources res;
    replay_resources_init(&res);
    struct replay_image *old = replay_resources_add_image(&res, 0x1000);
    cr_assert_not_null(old);
    old->linear = true;
    old->format = VK_FORMAT_R8_UNORM;
    old->bound = true;
    replay_resources_remove_image(&res, 0x1000);
    cr_assert_null(replay_resources_image(&res, 0x1000), "a destroyed image keeps a record");
    struct replay_image *made = replay_resources_add_image(&res, 0x1000);
    cr_assert_not_null(made);
    cr_assert_not(made->linear, "the new image was taken for the destroyed linear one");
    cr_assert_eq(made->format, VK_FORMAT_UNDEFINED);
    cr_assert_not(made->bound);
    replay_resources_finish(&res);
}

Test(replay_resources, a_create_without_a_destroy_still_starts_afresh)
{
    struct replay_resources res;
    replay_resources_init(&res);
    struct replay_buffer *b = replay_resources_add_buffer(&res, 42);
    *b = (struct replay_buffer){.size = 4096, .bound = true, .memory = 7, .offset = 256};
    b = replay_resources_add_buffer(&res, 42); /* a destroy the trace never recorded */
    cr_assert_eq(b->size, 0);
    cr_assert_not(b->bound);
    cr_assert_eq(replay_resources_buffer(&res, 42), b);
    replay_resources_finish(&res);
}

Test(replay_resources, buffers_and_images_with_one_value_are_two_objects)
{
    struct replay_resources res;
    replay_resources_init(&res);
    replay_resources_add_buffer(&res, 9)->size = 64;
    replay_resources_add_image(&res, 9)->linear = true;
    replay_resources_remove_image(&res, 9);
    cr_assert_eq(replay_resources_buffer(&res, 9)->size, 64);
    replay_resources_remove_buffer(&res, 9);
    replay_resources_remove_buffer(&res, 9); /* twice, or never made: ignored */
    cr_assert_null(replay_resources_buffer(&res, 9));
    replay_resources_finish(&res);
}
