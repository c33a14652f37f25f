/*
 * gen/include/gfxr_codec.h — GFXReconstruct's parameter encoding, decoded
 * into retrace's argument blocks (struct rt_vk_args_<vkName>).
 *
 * Owns: the table of GFXReconstruct's Vulkan call ids (generated from vk.xml
 * and gen/gfxr/call_ids.txt by emit_gfxr.py) and the interpreter that walks
 * retrace's generated descriptor tables the way GFXReconstruct writes each
 * member (pointer attributes, address, length, data; see docs/FORMATS.md §20).
 * Must not touch: GFXReconstruct's blocks and files (import/ reads those),
 * retrace trace files, Vulkan. Safe on untrusted input, as vkcodec_decode.c:
 * every count is checked against the bytes left before it sizes an allocation.
 * Entry points: rt_gfxr_call_find, rt_gfxr_decode_call, rt_gfxr_return_value.
 */
#ifndef RT_GFXR_CODEC_H
#define RT_GFXR_CODEC_H

#include <stdint.h>

#include "vkcodec.h"

/** How a GFXReconstruct call id is decoded. */
enum rt_gfxr_call_kind {
    RT_GFXR_CALL_UNKNOWN,  /* GFXReconstruct's, but not a command of this vk.xml */
    RT_GFXR_CALL_GENERIC,  /* vk.xml's members in order, return value last */
    RT_GFXR_CALL_TEMPLATE, /* descriptor update template data: rt_gfxr_decode_template_call */
    RT_GFXR_CALL_REFUSED,  /* GFXReconstruct's own layout, not mapped: why says so */
};

struct rt_gfxr_call {
    uint32_t id;      /* 0x10000 | GFXReconstruct's number */
    const char *name; /* the Vulkan command */
    int32_t cmd;      /* enum rt_vk_cmd, or -1 (UNKNOWN) */
    uint8_t kind;     /* enum rt_gfxr_call_kind */
    const char *why;  /* REFUSED, UNKNOWN: the reason */
};

/** The entry of a call id, or NULL when GFXReconstruct has no Vulkan call by that id. */
const struct rt_gfxr_call *rt_gfxr_call_find(uint32_t id);

/**
 * Decodes one function call's parameters (GFXReconstruct encoding, return
 * value last) into args_out (rt_vk_args_size(cmd) bytes). Arrays and strings
 * live in dec->arena. Every byte must be consumed. RT_ERR_BAD_INPUT names the
 * member and what is wrong.
 */
RT_MUST_CHECK rt_status rt_gfxr_decode_call(struct rt_dec *dec, enum rt_vk_cmd cmd, void *args_out);

/** Decodes one struct of the given type, GFXReconstruct-encoded, without a pointer preamble. */
RT_MUST_CHECK rt_status rt_gfxr_decode_struct(struct rt_dec *dec, enum rt_vk_struct_type type, void *value_out);

/** The decoded call's return value as a CALL packet carries it (VkResult sign-extended), 0 for void. */
uint64_t rt_gfxr_return_value(enum rt_vk_cmd cmd, const void *args);

#endif
