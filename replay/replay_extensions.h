/*
 * replay/replay_extensions.h — the generated map from commands and pNext
 * structures to the extension that brings them (gen/emit_extensions.py), for
 * strip-unsupported (strip.c).
 */
#ifndef RT_REPLAY_EXTENSIONS_H
#define RT_REPLAY_EXTENSIONS_H

#include "vk_commands_gen.h"

struct replay_stype_extension {
    VkStructureType stype;
    const char *extension;
};

/** Indexed by enum rt_vk_cmd: the extension a command belongs to, NULL for core. */
extern const char *const replay_cmd_extension[RT_VK_CMD_COUNT];
extern const struct replay_stype_extension replay_stype_extensions[];
extern const unsigned replay_stype_extension_count;

#endif
