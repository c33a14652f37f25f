/*
 * png/png_fast.h — the fast path of PNG decoding (png_fast.c): 8-bit RGB
 * and RGBA, not interlaced, fully validated; ISA-L or, built without it,
 * libdeflate for the inflate.
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

/**
 * The buffer size rt_png_fast_decode_within needs for a file of FILE_SIZE
 * bytes that starts with the HEAD_SIZE bytes at HEAD (its signature and
 * IHDR: 29 bytes or more), or 0 when that header is not one this path
 * decodes (the file then goes to libpng).
 */
size_t rt_png_fast_room(const uint8_t *head, size_t head_size, size_t file_size);

/**
 * As rt_png_fast_decode_in_place, decoding into DATA itself: its CAP bytes
 * (at least rt_png_fast_room's) hold the file's SIZE bytes at the start. On
 * success *out's pixels are DATA, which *out now owns (rt_image_finish frees
 * it); on false DATA is overwritten and still the caller's to free.
 */
bool rt_png_fast_decode_within(uint8_t *data, size_t size, size_t cap, struct rt_image *out);

/** Which library inflates: "isa-l" or "libdeflate" (meson's -Disal option). */
const char *rt_png_fast_inflater(void);

/** malloc, its pages faulted in at once when large (MADV_POPULATE_WRITE); free() frees it. */
void *rt_png_big_alloc(size_t size);

#endif
