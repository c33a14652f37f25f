/*
 * gen/include/vkcodec.h — deep encoding, decoding, printing and walking of Vulkan
 * calls and structs, driven by tables generated from vk.xml.
 *
 * Owns: the wire form of a Vulkan call's parameters (see gen/README.md) and
 * the interpreter that walks the generated tables (vk_tables_gen.h,
 * vk_commands_gen.h) to encode, decode (into a per-call arena), compare,
 * print and random-fill argument blocks `struct rt_vk_args_<vkName>`; the
 * dispatch tables shared by capture and replay (vk_dispatch_gen.h).
 * Must not touch: trace files and blocks (trace/), live Vulkan objects, the
 * handle maps of replay. It never calls Vulkan.
 *
 * Decoding is safe on untrusted input: every read is bounds-checked, every
 * allocation is sized by a count already checked against the bytes left, and
 * a malformed input yields RT_ERR_BAD_INPUT with a one-line message.
 *
 * Entry points: rt_vk_encode_call, rt_vk_decode_call, rt_vk_print_call,
 * rt_vk_walk_handles, rt_vk_args_equal, and their *_struct twins.
 */
#ifndef RT_VKCODEC_H
#define RT_VKCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <vulkan/vulkan.h>

#include "arena.h"
#include "codec.h"
#include "status.h"
#include "vk_commands_gen.h"
#include "vk_tables_gen.h"

/* What the codec met but could not represent; callers log or record it. */
struct rt_vk_stats {
    uint64_t unknown_stypes;     /* pNext nodes whose sType the tables lack */
    uint32_t last_unknown_stype; /* the latest of them */
};

/** Encodes the argument block of cmd (struct rt_vk_args_<name>), outputs too. */
RT_MUST_CHECK rt_status rt_vk_encode_call(struct rt_enc *enc, enum rt_vk_cmd cmd, const void *args);
/** As rt_vk_encode_call; counts unknown pNext sTypes into stats (may be NULL). */
RT_MUST_CHECK rt_status rt_vk_encode_call_stats(struct rt_enc *enc, enum rt_vk_cmd cmd,
                                                const void *args, struct rt_vk_stats *stats);

/**
 * Decodes into args_out (rt_vk_args_size(cmd) bytes, zeroed first). Everything
 * pointed to lives in dec->arena, which must be set. Handles come back as the
 * captured ids; function pointers as NULL. Unknown pNext nodes are dropped
 * from the chain and counted.
 */
RT_MUST_CHECK rt_status rt_vk_decode_call(struct rt_dec *dec, enum rt_vk_cmd cmd, void *args_out);
RT_MUST_CHECK rt_status rt_vk_decode_call_stats(struct rt_dec *dec, enum rt_vk_cmd cmd,
                                                void *args_out, struct rt_vk_stats *stats);

/** sizeof(struct rt_vk_args_<name>); 0 when cmd is not compiled here or excluded. */
size_t rt_vk_args_size(enum rt_vk_cmd cmd);

/**
 * Whether the generated codec can encode every call of cmd (or every value of
 * a struct type) without meeting an excluded struct (gen/overrides.py) or a
 * platform that is not compiled in. pNext chains are checked per call.
 */
bool rt_vk_cmd_encodable(enum rt_vk_cmd cmd);
bool rt_vk_struct_encodable(enum rt_vk_struct_type type);

/** One struct by type, e.g. RT_VK_STRUCT_VkPhysicalDeviceMemoryProperties. */
RT_MUST_CHECK rt_status rt_vk_encode_struct(struct rt_enc *enc, enum rt_vk_struct_type type,
                                            const void *value);
RT_MUST_CHECK rt_status rt_vk_decode_struct(struct rt_dec *dec, enum rt_vk_struct_type type,
                                            void *value_out);
/** sizeof the struct; 0 when not compiled here. */
size_t rt_vk_struct_size(enum rt_vk_struct_type type);
/** Struct index for an sType; false when the tables do not know it. */
bool rt_vk_struct_from_stype(uint32_t stype, enum rt_vk_struct_type *type_out);

/**
 * Deep comparison of two argument blocks (or structs), as the wire sees them:
 * function pointers are ignored, unknown pNext nodes skipped. On a difference
 * it writes "Struct.member" into where (if non-NULL) and returns false.
 */
bool rt_vk_args_equal(enum rt_vk_cmd cmd, const void *a, const void *b, char *where, size_t where_size);
bool rt_vk_struct_equal(enum rt_vk_struct_type type, const void *a, const void *b, char *where,
                        size_t where_size);

/**
 * Called for every handle in an argument block, pNext chains included.
 * slot points at the handle's storage (so replay can rewrite it in place);
 * output is true when the handle is written by the command.
 */
typedef void (*rt_vk_handle_fn)(void *user, VkObjectType type, void *slot, bool output);
void rt_vk_walk_handles(enum rt_vk_cmd cmd, const void *args, rt_vk_handle_fn fn, void *user);

/** Turns a handle id into the number printed as <VkBuffer N>; NULL namer prints the id. */
typedef uint64_t (*rt_vk_handle_namer)(void *user, VkObjectType type, uint64_t id);
struct rt_vk_print_opts {
    rt_vk_handle_namer namer;
    void *user;
    uint32_t max_elems; /* array elements printed before "..."; 0 = 64 */
};

/**
 * Writes "vkCreateBuffer(device=<VkDevice 1>, pCreateInfo={...}, ...) = VK_SUCCESS"
 * (no newline). Enums and flags print by name, common prefix and _BIT dropped.
 */
RT_MUST_CHECK rt_status rt_vk_print_call(FILE *out, enum rt_vk_cmd cmd, const void *args,
                                         const struct rt_vk_print_opts *opts);
/** snprintf-like: writes at most size bytes (NUL included), returns the full length. */
size_t rt_vk_format_call(char *buf, size_t size, enum rt_vk_cmd cmd, const void *args,
                         const struct rt_vk_print_opts *opts);
size_t rt_vk_format_struct(char *buf, size_t size, enum rt_vk_struct_type type, const void *value,
                           const struct rt_vk_print_opts *opts);

/**
 * Fills an argument block (or struct) with pseudo-random valid contents:
 * small counts, strings, sTypes, pNext chains of structs legal there, optional
 * pointers sometimes NULL. Memory comes from arena. For tests and fuzzing.
 */
RT_MUST_CHECK rt_status rt_vk_random_args(enum rt_vk_cmd cmd, void *args_out, struct rt_arena *arena,
                                          uint64_t *seed);
RT_MUST_CHECK rt_status rt_vk_random_struct(enum rt_vk_struct_type type, void *value_out,
                                            struct rt_arena *arena, uint64_t *seed);

#endif
