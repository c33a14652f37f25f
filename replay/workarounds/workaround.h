/*
 * replay/workarounds/workaround.h — a workaround is one unit: one const
 * descriptor (name, summary, what it changes, its named counters and its
 * hooks) in a file of its own beside this one. registry.c lists them; the
 * catalogue and the set files (workarounds.c), `retrace workarounds
 * list|show`, the report's workarounds_acted (report.c) and README's table
 * (checked by tests/unit/test_replay_config.c) all read replay_workarounds[].
 *
 * Counters are the fields of a struct of the workaround's own, declared in
 * its file: a counter it does not have is a compile error. Their names in the
 * report are the field names (REPLAY_WA_COUNTER stringifies them).
 *
 * Owns: the descriptor type and the registry. Must not touch: the engine's
 * call order (configure.c runs the hooks, in registry order, at the points
 * replay_config.h names).
 */
#ifndef RT_REPLAY_WORKAROUND_H
#define RT_REPLAY_WORKAROUND_H

#include <stddef.h>

#include "config.h"
#include "replay_config.h"

struct replay_wa_counter {
    const char *name; /* the report's key: the field's name */
    uint8_t index;    /* its place in rt_replay_outcome.acted[id][] */
};

/* One entry of a descriptor's counter list: field FIELD of struct TYPE. */
#define REPLAY_WA_COUNTER(type, field) {#field, (uint8_t)(offsetof(type, field) / sizeof(uint64_t))}

/* A descriptor's counter fields: the list LIST of counters of struct TYPE. */
#define REPLAY_WA_COUNTER_FIELDS(list, type) \
    .counters = (list), .counter_count = sizeof(list) / sizeof((list)[0]), .counters_size = sizeof(type)

/* Defines `static TYPE *counters(struct replay *r)`: workaround ID's counters in
 * this replay's outcome, as its own struct (which must fit the outcome's slots). */
#define REPLAY_WA_COUNTERS(type, id)                                                                    \
    _Static_assert(sizeof(type) <= RT_ACT_COUNTERS * sizeof(uint64_t), #type ": too many counters"); \
    static type *counters(struct replay *r) { return (type *)(void *)r->result->outcome.acted[id]; }

struct replay_workaround {
    struct rt_workaround_info info; /* name, summary, changes: `workarounds list|show` */
    enum rt_workaround id;
    const struct replay_wa_counter *counters;
    uint32_t counter_count;
    size_t counters_size;   /* sizeof its counters struct: every field must be in counters */
    const char *names_key;  /* the report's key for the names it lists in acted_names, or NULL */
    /* Hooks, NULL where it does nothing; run only when the workaround is on. */
    /** Device creation, on the decoded (writable) create info. */
    rt_status (*adjust_device)(struct replay *r, VkDeviceCreateInfo *info);
    /** A new allocation (the trace's, or one rebinding makes). */
    rt_status (*new_memory)(struct replay *r, struct replay_device *dev, VkDeviceMemory memory, VkDeviceSize size,
                            uint32_t type_index);
    /** Before a call, on its decoded arguments (handles still captured ids). */
    rt_status (*before_call)(struct replay *r, enum rt_vk_cmd cmd, void *args);
    /** After a call that succeeded (handles live where the call mapped them). */
    rt_status (*after_call)(struct replay *r, enum rt_vk_cmd cmd, void *args);
    /** Before a submission (RT_VK_CMD_FLAG_SUBMITS) to QUEUE (live) of DEV. */
    rt_status (*before_submit)(struct replay *r, struct replay_device *dev, enum rt_vk_cmd cmd, void *args);
    /** After a submission to QUEUE (live) of DEV. */
    rt_status (*after_submit)(struct replay *r, struct replay_device *dev, VkQueue queue);
    /** At the end of every frame (the trace's frame boundary). */
    void (*frame_end)(struct replay *r);
};

/* Every workaround, indexed by enum rt_workaround; hooks run in this order. */
extern const struct replay_workaround *const replay_workarounds[RT_WA_COUNT];

/** Adds NAME to workaround W's list in the report (comma-separated); false
 * when the list is full or, with ONCE, when NAME is in it already. */
bool replay_wa_add_name(struct replay *r, enum rt_workaround w, const char *name, bool once);

/** The test-only models of a driver's bug (test_*.c): an error naming NAME unless
 * RETRACE_TEST_DRIVER=1, so that no configuration turns one on by accident. */
rt_status replay_wa_test_driver_check(const char *name) RT_MUST_CHECK;

#endif
