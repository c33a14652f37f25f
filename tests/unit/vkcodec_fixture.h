/*
 * tests/unit/vkcodec_fixture.h — random values of every struct or argument
 * block that has a generated function (encoder, decoder, walker), for the
 * tests that hold each generated function to the interpreter's answer.
 */
#ifndef RT_TEST_VKCODEC_FIXTURE_H
#define RT_TEST_VKCODEC_FIXTURE_H

#include <stdbool.h>

#include "vkcodec_internal.h"

/** A struct (index: enum rt_vk_struct_type) or an argument block (enum rt_vk_cmd). */
struct vkc_subject {
    const char *name;
    unsigned index;
    bool command;
    const struct rt_vk_struct_desc *sd;
};

typedef bool (*vkc_has_fn)(const struct vkc_subject *s);
typedef void (*vkc_check_fn)(const struct vkc_subject *s, const void *value, void *ctx);

/** Calls check with `seeds` random values (rt_vk_random_struct or _args)
 * of every struct, or with commands every argument block, for which has
 * says yes; returns for how many. */
unsigned vkc_for_each_random(bool commands, unsigned seeds, vkc_has_fn has, vkc_check_fn check, void *ctx);

#endif
