/*
 * readback/bc.h — what convert.c and bc.c share: BCn (S3TC, RGTC, BPTC)
 * block decoding for the formats Vulkan calls BC1 to BC7, per the Khronos
 * Data Format Specification 1.3 (§ S3TC, RGTC, BPTC), and sample helpers.
 */
#ifndef RT_READBACK_BC_H
#define RT_READBACK_BC_H

#include "convert.h"
#include "formats.h"

/** A value in [0, 1] (clamped; NaN is 0) as a sample of DEPTH bits. */
uint16_t rt_sample_from_unit(double f, unsigned depth);

/** Bytes the blocks of WIDTH x HEIGHT texels of F span, rows ROW_PITCH apart. */
size_t rt_convert_blocks_size(const struct rt_format_info *f, uint32_t width, uint32_t height, size_t row_pitch);

/** The plan for a BC format (channels of its components; BC6H at 16 bits). */
bool rt_bc_plan(const struct rt_format_info *f, struct rt_convert_plan *p);

/**
 * Decodes one block of F into 16 texels (row-major 4x4) of RGBA in [0, 1]
 * (SNORM formats in [-1, 1], BC6H in half-float range).
 */
void rt_bc_decode_block(const struct rt_format_info *f, const uint8_t *block, float texels[16][4]);

/** BPTC (bptc.c): BC6H (SIGNED: the SFLOAT form) and BC7 blocks, RGBA out. */
void rt_bptc_decode_bc6h(const uint8_t *block, bool is_signed, float texels[16][4]);
void rt_bptc_decode_bc7(const uint8_t *block, float texels[16][4]);

/** Decodes every block into OUT (its size, channels and depth set). */
rt_status rt_bc_decode_image(const struct rt_format_info *f, const void *bytes, size_t row_pitch,
                             struct rt_texels *out) RT_MUST_CHECK;

#endif
