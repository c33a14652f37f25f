/*
 * png/png_fast.h — the fast path of PNG decoding (png_fast.c): 8-bit RGB
 * and RGBA, not interlaced, fully validated, libdeflate for the inflate.
 * Private to png/ (not in include/); png_io.c calls it before libpng.
 */
#ifndef RT_PNG_FAST_H
#define RT_PNG_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "png_io.h"

/**
 * Decodes the SIZE bytes at DATA into *out (8-bit RGBA, the same bytes libpng
 * gives) when they are a well-formed PNG of the kinds this path handles, and
 * returns true. Returns false, with *out untouched, for anything else,
 * whether valid or broken: the caller then asks libpng, which decodes it or
 * says what is wrong.
 */
bool rt_png_fast_decode(const uint8_t *data, size_t size, struct rt_image *out);

/**
 * As rt_png_fast_decode, but DATA may be overwritten (the image data is joined
 * in place, saving a copy): afterwards it is no longer a valid PNG.
 */
bool rt_png_fast_decode_in_place(uint8_t *data, size_t size, struct rt_image *out);

/** malloc, its pages faulted in at once when large (MADV_POPULATE_WRITE); free() frees it. */
void *rt_png_big_alloc(size_t size);

#endif
