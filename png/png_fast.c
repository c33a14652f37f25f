/*
 * png/png_fast.c — a fast decoder for the PNGs compare sees most: 8-bit
 * RGB or RGBA, not interlaced, no palette or tRNS (every golden, screenshot
 * and diff image retrace writes, and most renderer output).
 *
 * Owns: accepting only what it can prove is a well-formed file of that kind,
 * and decoding it to the same bytes libpng would. It validates as strictly as
 * libpng or more: every chunk's CRC (critical and ancillary), chunk names and
 * order, the zlib stream's header and Adler-32 (ISA-L checks it), the
 * exact amount of image data, every row's filter type, and a final IEND. Any
 * file it does not accept (another format, or anything wrong or unusual) is
 * left to libpng (png_io.c), which decodes it or gives the error message;
 * this file never produces an error of its own.
 * Must not touch: libpng, files, SSIM.
 *
 * Why faster: ISA-L inflates the whole image in one call (about 1.5x
 * libdeflate's speed, which is about twice zlib's), rows are unfiltered straight into the RGBA buffer the image
 * keeps (RGB gets its alpha in the same pass), and nothing is copied twice.
 */
#include "png_fast.h"

#if defined(RT_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_CHUNK 0x7fffffffu

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

struct png_layout {
    uint32_t w, h, bpp;    /* bytes per pixel: 3 (RGB) or 4 (RGBA) */
    const uint8_t *idat;   /* the first IDAT chunk's data */
    size_t idat_chunks;    /* consecutive IDAT chunks from there */
    size_t idat_bytes;     /* their data, summed */
};

/* The IHDR fields this decoder takes; false for anything else. */
static bool parse_ihdr(const uint8_t *d, struct png_layout *l)
{
    l->w = be32(d);
    l->h = be32(d + 4);
    if (l->w == 0 || l->h == 0 || l->w > RT_IMAGE_MAX_SIDE || l->h > RT_IMAGE_MAX_SIDE ||
        (uint64_t)l->w * l->h > RT_IMAGE_MAX_PIXELS)
        return false;
    if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[10] != 0 || d[11] != 0 || d[12] != 0)
        return false;
    l->bpp = d[9] == 6 ? 4 : 3;
    return true;
}

/*
 * Walks the chunks: IHDR first, then ancillary chunks, one run of IDATs,
 * ancillary chunks, IEND. Every CRC is checked. False on anything else,
 * including critical chunks this decoder does not handle (PLTE) and tRNS.
 */
static bool walk_chunks(const uint8_t *data, size_t size, struct png_layout *l)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size < 8 || memcmp(data, sig, 8))
        return false;
    size_t pos = 8, index = 0;
    bool idat_done = false;
    uint64_t raw = 0;
    for (;; index++) {
        if (size - pos < 12)
            return false;
        uint32_t len = be32(data + pos);
        const uint8_t *type = data + pos + 4, *body = data + pos + 8;
        if (len > MAX_CHUNK || size - pos - 12 < len)
            return false;
        if (!is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) ||
            !is_letter(type[3]))
            return false;
        if ((uint32_t)libdeflate_crc32(0, type, (size_t)len + 4) != be32(body + len))
            return false;
        bool ihdr = !memcmp(type, "IHDR", 4), idat = !memcmp(type, "IDAT", 4);
        if ((index == 0) != ihdr)
            return false;
        if (ihdr) {
            if (len != 13 || !parse_ihdr(body, l))
                return false;
            /* libpng's own bound on one IDAT chunk (png_check_chunk_length) */
            raw = (uint64_t)l->h * (1 + (uint64_t)l->w * l->bpp);
        } else if (idat) {
            if (idat_done || len > raw + 6 + 5 * (l->h / 32566 + 1))
                return false;
            if (!l->idat_chunks)
                l->idat = body;
            l->idat_chunks++;
            l->idat_bytes += len;
        } else if (!memcmp(type, "IEND", 4)) {
            return len == 0 && l->idat_chunks > 0;
        } else if (!(type[0] & 0x20) || !memcmp(type, "tRNS", 4)) {
            return false; /* PLTE or an unknown critical chunk; tRNS adds alpha */
        }
        if (!idat && l->idat_chunks)
            idat_done = true;
        pos += (size_t)len + 12;
    }
}

/*
 * malloc for the large buffers of a decode (the file with room for its
 * image, the joined data), faulted in at once by madvise: a 1080p image is
 * 8 MB, 2,000 page faults one by one, which cost more than its unfiltering.
 * Large buffers are 2 MB aligned and asked for as transparent huge pages,
 * so the kernel clears 2 MB pages instead of handling every 4 KB one
 * (`retrace compare` of a 1080p pair: 83 -> 69 ms CPU, paired runs). Both
 * madvise calls are hints; older kernels refuse them. free() releases it.
 */
void *rt_png_big_alloc(size_t size)
{
    const size_t huge = (size_t)2 << 20;
    if (size < ((size_t)1 << 20))
        return malloc(size);
    size_t rounded = (size + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, rounded);
#if defined(MADV_HUGEPAGE)
    if (p)
        (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
#if defined(MADV_POPULATE_WRITE)
    if (p) /* a hint: older kernels refuse it */
        (void)madvise(p, rounded, MADV_POPULATE_WRITE);
#endif
    return p;
}

/*
 * The IDAT chunks' data, joined: the first chunk itself when there is one;
 * else moved together in place when the caller's buffer may be overwritten
 * (INPLACE: the chunks were already checked, and each moves down), else
 * copied into a new buffer (*owned, for the caller to free).
 */
static const uint8_t *join_idat(const struct png_layout *l, uint8_t *inplace, uint8_t **owned)
{
    *owned = NULL;
    if (l->idat_chunks == 1)
        return l->idat;
    uint8_t *out = inplace;
    if (!out) {
        out = rt_png_big_alloc(l->idat_bytes ? l->idat_bytes : 1);
        if (!out)
            return NULL;
        *owned = out;
    }
    const uint8_t *chunk = l->idat - 8;
    size_t at = 0;
    for (size_t i = 0; i < l->idat_chunks; i++) {
        uint32_t len = be32(chunk);
        memmove(out + at, chunk + 8, len);
        at += len;
        chunk += (size_t)len + 12;
    }
    return out;
}

#if defined(__SSE2__)
typedef __m128i px_t;

static px_t px_load(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}

static void px_store(uint8_t *p, px_t v)
{
    int32_t x = _mm_cvtsi128_si32(v);
    memcpy(p, &x, 4);
}

static px_t px_add(px_t a, px_t b) { return _mm_add_epi8(a, b); }
static px_t px_or(px_t a, px_t b) { return _mm_or_si128(a, b); }

/* floor((a + b) / 2) per byte: pavgb rounds up. */
static px_t px_avg(px_t a, px_t b)
{
    px_t up = _mm_avg_epu8(a, b);
    return _mm_sub_epi8(up, _mm_and_si128(_mm_xor_si128(a, b), _mm_set1_epi8(1)));
}

static px_t abs16(px_t v) { return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v)); }

static px_t select16(px_t mask, px_t yes, px_t no)
{
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

/* The Paeth predictor of each byte (PNG spec 9.4), on 16-bit lanes. */
static px_t px_paeth(px_t a8, px_t b8, px_t c8)
{
    px_t z = _mm_setzero_si128();
    px_t a = _mm_unpacklo_epi8(a8, z), b = _mm_unpacklo_epi8(b8, z), c = _mm_unpacklo_epi8(c8, z);
    px_t pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
    px_t pc = abs16(_mm_add_epi16(pa, pb));
    pa = abs16(pa);
    pb = abs16(pb);
    px_t least = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
    px_t pick = select16(_mm_cmpeq_epi16(least, pa), a,
                         select16(_mm_cmpeq_epi16(least, pb), b, c));
    return _mm_packus_epi16(pick, z);
}
#else
typedef struct { uint8_t v[4]; } px_t;

static px_t px_load(const uint8_t *p)
{
    px_t r;
    memcpy(r.v, p, 4);
    return r;
}

static void px_store(uint8_t *p, px_t v) { memcpy(p, v.v, 4); }

static px_t px_add(px_t a, px_t b)
{
    for (int i = 0; i < 4; i++)
        a.v[i] = (uint8_t)(a.v[i] + b.v[i]);
    return a;
}

static px_t px_or(px_t a, px_t b)
{
    for (int i = 0; i < 4; i++)
        a.v[i] |= b.v[i];
    return a;
}

static px_t px_avg(px_t a, px_t b)
{
    for (int i = 0; i < 4; i++)
        a.v[i] = (uint8_t)((a.v[i] + b.v[i]) >> 1);
    return a;
}

static px_t px_paeth(px_t a, px_t b, px_t c)
{
    px_t r;
    for (int i = 0; i < 4; i++) {
        int pa = abs(b.v[i] - c.v[i]), pb = abs(a.v[i] - c.v[i]);
        int pc = abs(a.v[i] + b.v[i] - 2 * c.v[i]);
        r.v[i] = pa <= pb && pa <= pc ? a.v[i] : pb <= pc ? b.v[i] : c.v[i];
    }
    return r;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <tmmintrin.h>
#define RT_HAVE_ROW_SIMD 1

/*
 * Filter types 0 (None) and 2 (Up) have no dependency along the row, so
 * they go four pixels at a time: load 16 bytes, for RGB spread 12 of them
 * to RGBA with pshufb (SSSE3, checked at run time), add the row above, set
 * alpha. Most rows of rendered frames are Up (85% in bench/compare.sh's
 * pair). Returns the pixels done (a multiple of 4); the caller does the
 * rest. DST may lie before SRC: a block is loaded before it is stored, and
 * for RGB the store must end before the next block's first byte, which
 * the caller checks (dst + 4x + 16 <= src + 3x + 12 for every block).
 */
__attribute__((target("ssse3"))) static uint32_t unfilter_simd(int filter, const uint8_t *src,
                                                               uint8_t *dst, const uint8_t *prev,
                                                               uint32_t w, uint32_t bpp)
{
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i alpha = bpp == 3 ? _mm_set1_epi32((int)0xff000000u) : _mm_setzero_si128();
    uint32_t x = 0;
    /* RGB reads 16 bytes for 12: the last block stops 2 pixels short of the row's end */
    uint32_t end = bpp == 3 ? (w >= 6 ? (w - 2) & ~3u : 0) : w & ~3u;
    for (; x < end; x += 4) {
        __m128i s = _mm_loadu_si128((const __m128i *)(const void *)(src + (size_t)x * bpp));
        if (bpp == 3)
            s = _mm_shuffle_epi8(s, spread);
        if (filter == 2)
            s = _mm_add_epi8(s, _mm_loadu_si128((const __m128i *)(const void *)(prev + (size_t)x * 4)));
        _mm_storeu_si128((__m128i *)(void *)(dst + (size_t)x * 4), _mm_or_si128(s, alpha));
    }
    return x;
}

static bool cpu_has_ssse3(void)
{
    static int has = -1; /* racy but idempotent: every thread computes the same */
    if (has < 0)
        has = __builtin_cpu_supports("ssse3") ? 1 : 0;
    return has;
}
#endif

/*
 * Unfilters one row of W pixels (BPP bytes each, at SRC) into RGBA at DST,
 * PREV being the row above in RGBA (zeros for the first row). Pixel by
 * pixel, four byte lanes at once; for RGB the fourth lane is the next
 * pixel's first byte, computed and then replaced by 255. DST may lie before
 * SRC in the same buffer: each pixel is read before anything is written
 * over it (rt_png_fast_decode explains why).
 */
static void unfilter_row(int filter, const uint8_t *src, uint8_t *dst, const uint8_t *prev,
                         uint32_t w, uint32_t bpp)
{
    px_t a = px_load((const uint8_t[4]){0}), c = a, alpha = a;
    if (bpp == 3)
        alpha = px_load((const uint8_t[4]){0, 0, 0, 255});
    uint32_t x = 0;
#if defined(RT_HAVE_ROW_SIMD)
    /* dst + 4x + 16 <= src + 3x + 12 for x < w: RGB's stores never reach unread bytes */
    bool room = bpp == 4 || (uintptr_t)src >= (uintptr_t)dst + w + 4 || src + (size_t)w * 3 <= dst;
    if ((filter == 0 || filter == 2) && room && cpu_has_ssse3())
        x = unfilter_simd(filter, src, dst, prev, w, bpp);
#endif
    for (; x < w; x++) {
        px_t s = px_load(src + (size_t)x * bpp), b = px_load(prev + (size_t)x * 4), r;
        switch (filter) {
        case 1: r = px_add(s, a); break;
        case 2: r = px_add(s, b); break;
        case 3: r = px_add(s, px_avg(a, b)); break;
        case 4: r = px_add(s, px_paeth(a, b, c)); break;
        default: r = s; break;
        }
        r = px_or(r, alpha); /* RGB: alpha 255; RGBA: unchanged */
        px_store(dst + (size_t)x * 4, r);
        a = r;
        c = b;
    }
}

const char *rt_png_fast_inflater(void)
{
#if defined(RT_HAVE_ISAL)
    return "isa-l";
#else
    return "libdeflate";
#endif
}

/*
 * The zlib stream Z (N bytes) inflated into exactly OUT_SIZE bytes at OUT,
 * with nothing after it; false for anything else. ISA-L's igzip inflates
 * rendered frames about 1.5x faster than libdeflate (bench/compare.sh's
 * 1080p files: 8.4 against 13.2 ms each, CPU); it checks the zlib header and
 * the Adler-32 (ISAL_ZLIB). The header is checked here as well, as zlib
 * does: deflate, a window of at most 32K, no preset dictionary, FCHECK.
 * Unread input, in avail_in or still in its bit buffer, is data after the
 * stream. Built without ISA-L (no libisal, or -Disal=disabled), libdeflate
 * does it: `./run test` runs this file's tests so too (build-noisal).
 */
static bool inflate_exact(const uint8_t *z, size_t n, uint8_t *out, size_t out_size)
{
    if (n < 6 || n > UINT32_MAX || out_size > UINT32_MAX || (z[0] & 0x0f) != 8 || z[0] >> 4 > 7 ||
        (z[1] & 0x20) || ((unsigned)z[0] << 8 | z[1]) % 31)
        return false;
#if defined(RT_HAVE_ISAL)
    struct inflate_state *st = malloc(sizeof *st); /* tens of KB: not for a thread's stack */
    if (!st)
        return false;
    isal_inflate_init(st);
    st->crc_flag = ISAL_ZLIB;
    st->next_in = (uint8_t *)z; /* igzip's API is not const; it does not write there */
    st->avail_in = (uint32_t)n;
    st->next_out = out;
    st->avail_out = (uint32_t)out_size;
    int rc = isal_inflate_stateless(st);
    bool unread = st->avail_in || st->read_in_length >= 8;
    bool ok = rc == ISAL_DECOMP_OK && st->avail_out == 0 && !unread;
    free(st);
    return ok;
#else
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t in_used = 0;
    bool ok = d && libdeflate_zlib_decompress_ex(d, z, n, out, out_size, &in_used, NULL) == LIBDEFLATE_SUCCESS &&
              in_used == n;
    libdeflate_free_decompressor(d);
    return ok;
#endif
}

/* Bytes a decode within the file's buffer needs: rt_png_fast_room. */
static size_t room_for(const struct png_layout *l, size_t file_size)
{
    size_t row = 1 + (size_t)l->w * l->bpp, rgba = (size_t)l->w * l->h * 4;
    size_t filtered = row * l->h, need = file_size + filtered;
    return (need > rgba ? need : rgba) + 16;
}

/*
 * rt_png_fast_decode, with SCRATCH = DATA when the caller lets it be
 * overwritten, and WITHIN its capacity (0: none) when the image may be
 * decoded in that same buffer.
 */
static bool decode(const uint8_t *data, size_t size, uint8_t *scratch, size_t within,
                   struct rt_image *out)
{
    struct png_layout l = {0};
    if (!walk_chunks(data, size, &l) || (within && within < room_for(&l, size)))
        return false;
    uint8_t *joined;
    const uint8_t *zdata = join_idat(&l, scratch ? scratch + (l.idat - data) : NULL, &joined);
    if (!zdata)
        return false;
    /*
     * One buffer holds the inflated rows at its end and receives the RGBA
     * rows from its start. Row y's RGBA ends at 4w(y+1); its filtered bytes
     * start at off + y(1 + bpp w) + 1 with off >= cap - h(1 + bpp w), and
     * pixel x is read (4 bytes) before RGBA pixel x, which ends at or before
     * byte x of those, is written: w >= 1 makes both hold. 16 bytes of slack
     * for the 4-byte read of an RGB row's last pixel. Within the file's own
     * buffer the file (and the joined data in it) comes first, the inflated
     * rows after it: the file's pages are not allocated and cleared twice.
     */
    size_t row = 1 + (size_t)l.w * l.bpp, rgba = (size_t)l.w * l.h * 4;
    size_t filtered = row * l.h, cap = filtered > rgba ? filtered : rgba;
    uint8_t *buf = within ? scratch : rt_png_big_alloc(cap + 16);
    size_t off = within ? within - 16 - filtered : cap - filtered;
    bool ok = buf && inflate_exact(zdata, l.idat_bytes, buf + off, filtered);
    free(joined);
    static const uint8_t zeros[4 * 64] = {0};
    uint8_t *zero_row = l.w <= 64 ? NULL : calloc(l.w, 4);
    const uint8_t *prev = l.w <= 64 ? zeros : zero_row;
    ok = ok && prev;
    for (uint32_t y = 0; ok && y < l.h; y++) {
        const uint8_t *src = buf + off + y * row;
        if (src[0] > 4) {
            ok = false; /* libpng: bad adaptive filter value */
            break;
        }
        uint8_t *dst = buf + (size_t)y * l.w * 4;
        unfilter_row(src[0], src + 1, dst, prev, l.w, l.bpp);
        prev = dst;
    }
    free(zero_row);
    if (!ok) {
        if (!within)
            free(buf);
        return false;
    }
    *out = (struct rt_image){.width = l.w, .height = l.h, .rgba = buf};
    return true;
}

bool rt_png_fast_decode(const uint8_t *data, size_t size, struct rt_image *out)
{
    return decode(data, size, NULL, 0, out);
}

bool rt_png_fast_decode_in_place(uint8_t *data, size_t size, struct rt_image *out)
{
    return decode(data, size, data, 0, out);
}

size_t rt_png_fast_room(const uint8_t *head, size_t head_size, size_t file_size)
{
    static const uint8_t start[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                      0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    struct png_layout l = {0};
    if (head_size < 29 || memcmp(head, start, 16) || !parse_ihdr(head + 16, &l))
        return 0;
    return room_for(&l, file_size);
}

bool rt_png_fast_decode_within(uint8_t *data, size_t size, size_t cap, struct rt_image *out)
{
    return cap >= size && decode(data, size, data, cap, out);
}
