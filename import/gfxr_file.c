/*
 * import/gfxr_file.c — a GFXReconstruct file: its header and options, its
 * blocks one at a time, and the payload decompression (none, LZ4, zstd).
 *
 * Safe on untrusted input: a block's size is checked against the bytes left
 * in the file before it is read, a decompressed size against a limit and
 * (zstd) the frame's own content size before anything is allocated.
 */
#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "import_internal.h"

#define GFXR_FOURCC 0x52584647u /* "GFXR" */
#define MAX_OPTIONS 64
/* A block body or a decompressed payload larger than this is refused: it
 * bounds the importer's memory (GFXReconstruct splits nothing, but a single
 * memory fill of this size is already far beyond any capture seen). */
#define MAX_BLOCK ((uint64_t)1 << 30)

static const char *const compression_names[] = {"none", "lz4", "zlib", "zstd"};

const char *gfxr_compression_name(uint32_t c)
{
    return c < sizeof compression_names / sizeof compression_names[0] ? compression_names[c] : "unknown";
}

static bool read_exact(struct gfxr_file *f, void *out, size_t n)
{
    if (fread(out, 1, n, f->fp) != n)
        return false;
    f->offset += n;
    return true;
}

static rt_status read_options(struct gfxr_file *f, uint32_t count)
{
    if (count > MAX_OPTIONS)
        return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset 0: %u options (at most %d)", count, MAX_OPTIONS);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t kv[2];
        if (!read_exact(f, kv, sizeof kv))
            return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset 0: truncated option %u", i);
        if (kv[0] != 1)
            return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset %" PRIu64 ": unknown file option %u",
                             f->offset - 8, kv[0]);
        if (kv[1] != GFXR_COMPRESSION_NONE && kv[1] != GFXR_COMPRESSION_LZ4 && kv[1] != GFXR_COMPRESSION_ZSTD)
            return rt_errorf(RT_ERR_BAD_INPUT, "file header: compression %u (%s) is not imported", kv[1],
                             gfxr_compression_name(kv[1]));
        f->compression = kv[1];
    }
    return rt_ok_status();
}

static rt_status read_header(struct gfxr_file *f)
{
    uint32_t h[4];
    if (!read_exact(f, h, sizeof h))
        return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset 0: truncated (%" PRIu64 " bytes)", f->size);
    if (h[0] != GFXR_FOURCC)
        return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset 0: not a GFXReconstruct capture (no GFXR magic)");
    if (h[1] != 0 || h[2] > 1)
        return rt_errorf(RT_ERR_BAD_INPUT, "file header at offset 0: GFXReconstruct file format %u.%u is not "
                         "imported (0.0 and 0.1 are)", h[1], h[2]);
    f->major = h[1];
    f->minor = h[2];
    return read_options(f, h[3]);
}

rt_status gfxr_open(const char *path, struct gfxr_file *f)
{
    *f = (struct gfxr_file){0};
    f->fp = fopen(path, "rb");
    struct stat st;
    if (!f->fp)
        return rt_errorf(RT_ERR_BAD_INPUT, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fileno(f->fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f->fp);
        f->fp = NULL;
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: not a regular file", path);
    }
    f->size = (uint64_t)st.st_size;
    rt_status s = read_header(f);
    if (!rt_ok(&s))
        gfxr_close(f);
    return s;
}

static bool grow(uint8_t **buf, size_t *cap, uint64_t need)
{
    if (need <= *cap)
        return true;
    uint8_t *p = realloc(*buf, (size_t)need);
    if (!p)
        return false;
    *buf = p;
    *cap = (size_t)need;
    return true;
}

rt_status gfxr_next(struct gfxr_file *f, struct gfxr_block *out, bool *end)
{
    uint8_t head[12];
    *end = false;
    out->offset = f->offset;
    out->index = f->blocks;
    if (f->offset == f->size) {
        *end = true;
        return rt_ok_status();
    }
    if (f->size - f->offset < sizeof head || !read_exact(f, head, sizeof head))
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": truncated block header "
                         "(%" PRIu64 " bytes left)", out->index, out->offset, f->size - out->offset);
    uint64_t size;
    memcpy(&size, head, 8);
    memcpy(&out->type, head + 8, 4);
    if (size > f->size - f->offset)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": truncated (%" PRIu64
                         " bytes of %" PRIu64 ")", out->index, out->offset, f->size - f->offset, size);
    if (size > MAX_BLOCK)
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": %" PRIu64 " bytes (at most "
                         "%" PRIu64 ")", out->index, out->offset, size, MAX_BLOCK);
    if (!grow(&f->body, &f->body_cap, size ? size : 1))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory for a %" PRIu64 "-byte block", size);
    if (!read_exact(f, f->body, (size_t)size))
        return rt_errorf(RT_ERR_BAD_INPUT, "block %" PRIu64 " at offset %" PRIu64 ": read failed", out->index,
                         out->offset);
    out->body = f->body;
    out->size = (size_t)size;
    f->blocks++;
    return rt_ok_status();
}

static rt_status check_raw_size(const struct gfxr_file *f, size_t in_size, uint64_t raw_size, const uint8_t *in)
{
    if (raw_size > MAX_BLOCK)
        return rt_errorf(RT_ERR_BAD_INPUT, "uncompressed size %" PRIu64 " (at most %" PRIu64 ")", raw_size,
                         MAX_BLOCK);
    if (f->compression == GFXR_COMPRESSION_LZ4 && raw_size > (uint64_t)in_size * 255 + 16)
        return rt_errorf(RT_ERR_BAD_INPUT, "uncompressed size %" PRIu64 " beyond what %zu LZ4 bytes can hold",
                         raw_size, in_size);
    if (f->compression == GFXR_COMPRESSION_ZSTD) {
        unsigned long long frame = ZSTD_getFrameContentSize(in, in_size);
        if (frame != raw_size)
            return rt_errorf(RT_ERR_BAD_INPUT, "zstd frame holds %s, the block says %" PRIu64 " bytes",
                             frame == ZSTD_CONTENTSIZE_ERROR ? "no valid frame header" : "another size",
                             raw_size);
    }
    return rt_ok_status();
}

rt_status gfxr_decompress(struct gfxr_file *f, const uint8_t *in, size_t in_size, uint64_t raw_size,
                          const uint8_t **out)
{
    if (f->compression == GFXR_COMPRESSION_NONE)
        return rt_errorf(RT_ERR_BAD_INPUT, "a compressed block in a file without compression");
    RT_TRY(check_raw_size(f, in_size, raw_size, in));
    if (!grow(&f->raw, &f->raw_cap, raw_size ? raw_size : 1))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory for %" PRIu64 " uncompressed bytes", raw_size);
    size_t got;
    if (f->compression == GFXR_COMPRESSION_LZ4) {
        int n = in_size > (size_t)INT32_MAX ? -1
                                            : LZ4_decompress_safe((const char *)in, (char *)f->raw, (int)in_size,
                                                                  (int)raw_size);
        got = n < 0 ? SIZE_MAX : (size_t)n;
    } else {
        got = ZSTD_decompress(f->raw, (size_t)raw_size, in, in_size);
        got = ZSTD_isError(got) ? SIZE_MAX : got;
    }
    if (got != raw_size)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s payload does not decompress to its %" PRIu64 " bytes",
                         gfxr_compression_name(f->compression), raw_size);
    *out = f->raw;
    return rt_ok_status();
}

void gfxr_close(struct gfxr_file *f)
{
    if (f->fp)
        fclose(f->fp);
    free(f->body);
    free(f->raw);
    *f = (struct gfxr_file){0};
}
