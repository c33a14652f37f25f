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

/* --- rebind placement ------------------------------------------------------------- */

static const VkMemoryRequirements plain = {.size = 512, .alignment = 256, .memoryTypeBits = 0x3};

Test(replay_placement, a_resource_alone_fits_where_aligned_inside_and_of_its_type)
{
    struct replay_extent self = {.offset = 256, .capture_size = 512, .replay_size = 512};
    cr_assert(replay_fits_in_place(&plain, 1, 1024, self, NULL, 0));
    cr_assert_not(replay_fits_in_place(&plain, 2, 1024, self, NULL, 0), "type 2 is not allowed");
    cr_assert_not(replay_fits_in_place(&plain, 1, 767, self, NULL, 0), "past the end");
    cr_assert_not(replay_fits_in_place(&plain, 40, 1024, self, NULL, 0), "no such type");
    self.offset = 128;
    cr_assert_not(replay_fits_in_place(&plain, 1, 1024, self, NULL, 0), "128 is not 256-aligned");
}

Test(replay_placement, aliases_of_the_capture_may_overlap_others_may_not)
{
    /* two buffers at one offset (zink's aliasing), and a neighbour after them */
    struct replay_extent alias = {.offset = 256, .capture_size = 512, .replay_size = 512};
    struct replay_extent next = {.offset = 768, .capture_size = 256, .replay_size = 256};
    struct replay_extent placed[] = {alias, next};
    cr_assert(replay_fits_in_place(&plain, 0, 4096, alias, placed, 1));
    cr_assert(replay_fits_in_place(&plain, 0, 4096, alias, placed, 2), "ends where the neighbour starts");
    /* an image that needs more bytes here than at capture would reach the neighbour */
    struct replay_extent grown = {.offset = 256, .capture_size = 512, .replay_size = 768};
    VkMemoryRequirements big = plain;
    big.size = 768;
    cr_assert_not(replay_fits_in_place(&big, 0, 4096, grown, placed, 2));
    cr_assert(replay_fits_in_place(&big, 0, 4096, grown, placed, 1), "alone with its alias it fits");
}

Test(replay_placement, extents_alias_when_they_share_a_byte_at_capture)
{
    struct replay_extent a = {.offset = 0, .capture_size = 256, .replay_size = 4096};
    struct replay_extent b = {.offset = 256, .capture_size = 256, .replay_size = 256};
    cr_assert_not(replay_extents_alias(a, b), "adjacent is not aliased, whatever the replay sizes");
    b.offset = 255;
    cr_assert(replay_extents_alias(a, b));
    b.capture_size = 0;
    cr_assert_not(replay_extents_alias(a, b), "an empty extent aliases nothing");
}
