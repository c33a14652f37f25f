/*
 * common/include/framelist.h — lists of 1-based frame numbers such as "1,10,100-120".
 *
 * Owns: parsing and membership for the --frames / --screenshot-frames lists of
 * capture and replay. "N-" means from N on; "all" means every frame.
 * Must not touch: anything but libc.
 */
#ifndef RT_FRAMELIST_H
#define RT_FRAMELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct rt_frame_range {
    uint64_t first, last; /* inclusive; last == UINT64_MAX for "N-" */
};

struct rt_frame_list {
    struct rt_frame_range *ranges; /* sorted by first */
    size_t count;
};

/** Parses TEXT; a malformed list is RT_ERR_USAGE naming the bad part. */
rt_status rt_frame_list_parse(const char *text, struct rt_frame_list *out) RT_MUST_CHECK;
void rt_frame_list_finish(struct rt_frame_list *list);

bool rt_frame_list_contains(const struct rt_frame_list *list, uint64_t frame);

/** The largest frame named, UINT64_MAX if open-ended, 0 if empty. */
uint64_t rt_frame_list_last(const struct rt_frame_list *list);

#endif
