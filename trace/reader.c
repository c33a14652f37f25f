/*
 * trace/reader.c — the streaming .rtrace reader (trace.h, FORMAT.md).
 *
 * Safe on untrusted input: every size is checked against the format's limits
 * before anything is allocated or read, so memory stays bounded by one block
 * (64 MiB raw). A block is validated whole (header checksum, payload
 * checksum, decompressed size, every packet's framing, counts, sequence
 * numbers) before its first packet is delivered, so the "good up to" report
 * always ends at a block boundary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "trace_internal.h"
#include "trace_snapshot.h"

#define ARENA_LIMIT (64u << 20) /* header strings and the name table */

struct rt_trace_reader {
    FILE *file;          /* or NULL for a memory source */
    uint64_t file_size;  /* of a regular file, else UINT64_MAX */
    const uint8_t *mem;
    size_t mem_size;
    uint64_t offset;     /* next byte to read */
    struct rt_arena arena;
    struct rt_trace_header header;
    uint8_t *stored, *raw; /* block payload as stored / decompressed */
    size_t stored_cap, raw_cap;
    ZSTD_DCtx *dctx;
    const uint8_t *pos;  /* undelivered packets of the current block */
    size_t left;
    uint64_t block_number, block_offset, seq, next_seq;
    struct rt_trace_device_info device; /* the last device-info packet */
    struct rt_trace_progress progress;
    uint8_t snapshot_stage; /* where a snapshot's packets may come (trace_snapshot.h) */
    rt_status error;
    bool failed;
};

static rt_status reader_fail(struct rt_trace_reader *r, rt_status s)
{
    rt_status_free(&r->error);
    r->error = rt_status_copy(&s); /* kept for the next call; S goes to the caller */
    r->failed = true;
    return s;
}

#define FAIL(r, ...) reader_fail((r), rt_errorf(RT_ERR_BAD_INPUT, __VA_ARGS__))

static bool grow(uint8_t **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    uint8_t *p = realloc(*buf, n);
    if (!p)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

/*
 * Up to n bytes at the current offset: in place for a memory source, else
 * read into r->stored (n is already checked against the format's limits).
 * Returns how many bytes there were.
 */
static size_t fetch(struct rt_trace_reader *r, size_t n, const uint8_t **out)
{
    size_t got;
    if (!r->file) {
        size_t left = r->mem_size - (size_t)r->offset;
        got = n < left ? n : left;
        *out = r->mem + r->offset;
    } else {
        /* A regular file's size caps the buffer, so a lying size field in a
         * small file does not make us allocate the 64 MiB limit. */
        uint64_t left = r->file_size - r->offset;
        if (r->file_size != UINT64_MAX && n > left)
            n = (size_t)left;
        if (!grow(&r->stored, &r->stored_cap, n ? n : 1))
            return 0;
        got = fread(r->stored, 1, n, r->file);
        *out = r->stored;
    }
    r->offset += got;
    return got;
}

static size_t read_into(struct rt_trace_reader *r, void *dst, size_t n)
{
    const uint8_t *p;
    size_t got = fetch(r, n, &p);
    if (got)
        memcpy(dst, p, got);
    return got;
}

static const char *short_read_reason(const struct rt_trace_reader *r)
{
    return r->file && ferror(r->file) ? strerror(errno) : "truncated";
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static rt_status check_fixed_header(struct rt_trace_reader *r, const uint8_t *fixed, size_t got)
{
    if (got == 0 && r->file && ferror(r->file))
        return FAIL(r, "cannot read: %s", strerror(errno));
    if (got == 0)
        return FAIL(r, "empty file (0 bytes): not an .rtrace trace");
    if (got < RT_FORMAT_MAGIC_SIZE || memcmp(fixed, RT_FORMAT_MAGIC, RT_FORMAT_MAGIC_SIZE))
        return FAIL(r, "offset 0: not an .rtrace trace (wrong magic)");
    if (got < RT_FORMAT_FILE_HEADER_SIZE)
        return FAIL(r, "file header at offset 0: %s (%zu of %d bytes)", short_read_reason(r), got,
                    RT_FORMAT_FILE_HEADER_SIZE);
    uint16_t major = le16(fixed + 8), minor = le16(fixed + 10);
    if (major > RT_FORMAT_VERSION_MAJOR)
        return FAIL(r, "trace format version %u.%u is newer than this retrace reads (%u.x): "
                       "update retrace", major, minor, RT_FORMAT_VERSION_MAJOR);
    if (major < 1)
        return FAIL(r, "unsupported trace format version %u.%u", major, minor);
    uint32_t flags = le32(fixed + 12);
    if (flags & ~RT_FORMAT_KNOWN_FLAGS) /* a feature this reader lacks (1.2) */
        return FAIL(r, "file header at offset 0: header flags 0x%" PRIx32 " of a newer retrace: update retrace",
                    flags & ~RT_FORMAT_KNOWN_FLAGS);
    uint32_t body = le32(fixed + 16);
    if (body > RT_FORMAT_MAX_HEADER_BODY)
        return FAIL(r, "file header at offset 0: header size %" PRIu32 " exceeds the %u-byte limit",
                    body, RT_FORMAT_MAX_HEADER_BODY);
    r->header.version_major = major;
    r->header.version_minor = minor;
    r->header.flags = le32(fixed + 12);
    return rt_ok_status();
}

static rt_status read_file_header(struct rt_trace_reader *r)
{
    uint8_t fixed[RT_FORMAT_FILE_HEADER_SIZE];
    RT_TRY(check_fixed_header(r, fixed, read_into(r, fixed, sizeof fixed)));
    uint32_t size = le32(fixed + 16);
    const uint8_t *body = NULL;
    size_t got = fetch(r, size, &body);
    if (got < size)
        return FAIL(r, "file header at offset %d: %s (%zu of %" PRIu32 " bytes)",
                    RT_FORMAT_FILE_HEADER_SIZE, short_read_reason(r), got, size);
    if (RT_CHECKSUMS_MATTER && rt_format_header_checksum(fixed, body, size) != le64(fixed + 20))
        return FAIL(r, "file header at offset 0: checksum mismatch");
    struct rt_dec dec;
    rt_dec_init(&dec, body, size, &r->arena);
    /* Trailing bytes are fields of a newer minor version: ignored. */
    if (!rt_format_decode_header_body(&dec, &r->header))
        return FAIL(r, "file header at offset 0: malformed fields");
    r->progress.good_bytes = r->offset;
    r->progress.raw_bytes = r->offset;
    return rt_ok_status();
}

/* ------------------------------------------------------------------ blocks */

#define BLOCK_FAIL(r, at, ...) \
    reader_fail((r), rt_status_wrap(rt_errorf(RT_ERR_BAD_INPUT, __VA_ARGS__), \
                                    "block %" PRIu64 " at offset %" PRIu64, (r)->block_number, (at)))

static rt_status check_block_header(struct rt_trace_reader *r, uint64_t at, const uint8_t *head,
                                    size_t got, struct rt_block_header *h)
{
    if (got == 0)
        return FAIL(r, "offset %" PRIu64 ": the trace ends without an end block after %" PRIu64
                       " blocks (the capture did not finish, or the file is truncated)",
                    at, r->block_number - 1);
    if (got < RT_FORMAT_BLOCK_HEADER_SIZE)
        return BLOCK_FAIL(r, at, "block header %s (%zu of %d bytes)", short_read_reason(r), got,
                          RT_FORMAT_BLOCK_HEADER_SIZE);
    bool bad_magic;
    if (!rt_format_block_header_unpack(head, h, &bad_magic))
        return BLOCK_FAIL(r, at, bad_magic ? "bad block magic" : "block header checksum mismatch");
    if (h->raw_size > RT_FORMAT_MAX_RAW_BLOCK)
        return BLOCK_FAIL(r, at, "raw size %" PRIu32 " exceeds the %u-byte limit", h->raw_size,
                          RT_FORMAT_MAX_RAW_BLOCK);
    if (h->stored_size > RT_FORMAT_MAX_STORED_BLOCK)
        return BLOCK_FAIL(r, at, "stored size %" PRIu32 " exceeds the %u-byte limit",
                          h->stored_size, RT_FORMAT_MAX_STORED_BLOCK);
    if (h->compression > RT_FORMAT_COMPRESSION_ZSTD)
        return BLOCK_FAIL(r, at, "unknown compression %u", h->compression);
    if (h->compression == RT_FORMAT_COMPRESSION_NONE && h->stored_size != h->raw_size)
        return BLOCK_FAIL(r, at, "uncompressed block with stored size %" PRIu32
                                 " but raw size %" PRIu32, h->stored_size, h->raw_size);
    return rt_ok_status();
}

/* The payload as raw bytes: in place when uncompressed, else decompressed. */
static rt_status unpack_payload(struct rt_trace_reader *r, uint64_t at,
                                const struct rt_block_header *h, const uint8_t *stored,
                                const uint8_t **raw_out)
{
    if (h->compression == RT_FORMAT_COMPRESSION_NONE) {
        *raw_out = stored;
        return rt_ok_status();
    }
    if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
        return reader_fail(r, rt_errorf(RT_ERR_INTERNAL, "out of memory"));
    if (!grow(&r->raw, &r->raw_cap, h->raw_size ? h->raw_size : 1))
        return reader_fail(r, rt_errorf(RT_ERR_INTERNAL, "out of memory for a %" PRIu32
                                                         "-byte block", h->raw_size));
    size_t n = ZSTD_decompressDCtx(r->dctx, r->raw, h->raw_size, stored, h->stored_size);
    if (ZSTD_isError(n))
        return BLOCK_FAIL(r, at, "zstd: %s", ZSTD_getErrorName(n));
    if (n != h->raw_size)
        return BLOCK_FAIL(r, at, "decompressed to %zu bytes, the header says %" PRIu32, n,
                          h->raw_size);
    *raw_out = r->raw;
    return rt_ok_status();
}

/* An end block must be empty and last: bytes after it are an error, so a
 * trace cannot silently hide appended data. */
static rt_status finish_at_end(struct rt_trace_reader *r, uint64_t at, const struct rt_block_header *h)
{
    if (h->raw_size || h->packet_count || h->call_count || h->frame_count)
        return BLOCK_FAIL(r, at, "end block is not empty");
    uint8_t extra;
    uint64_t end = r->offset;
    if (read_into(r, &extra, 1))
        return FAIL(r, "offset %" PRIu64 ": unexpected bytes after the end block", end);
    r->progress.good_bytes = end;
    r->progress.raw_bytes += RT_FORMAT_BLOCK_HEADER_SIZE;
    r->progress.ended = true;
    r->progress.emergency = (h->flags & RT_FORMAT_END_EMERGENCY) != 0;
    return rt_ok_status();
}

/* ----------------------------------------------------------------- packets */

struct block_counts {
    uint32_t packets, calls, frames;
    uint8_t snapshot; /* snapshot stage after these packets (trace_snapshot.h) */
};

static const size_t fixed_sizes[] = {
    [RT_FORMAT_PACKET_CALL] = RT_FORMAT_CALL_FIXED,
    [RT_FORMAT_PACKET_MEMORY_UPDATE] = RT_FORMAT_MEMORY_FIXED,
    [RT_FORMAT_PACKET_FRAME_END] = RT_FORMAT_FRAME_FIXED,
    [RT_FORMAT_PACKET_ANNOTATION] = RT_FORMAT_ANNOTATION_FIXED,
    [RT_FORMAT_PACKET_UNSUPPORTED] = RT_FORMAT_UNSUPPORTED_FIXED,
    [RT_FORMAT_PACKET_DEVICE_INFO] = 0,
    [RT_FORMAT_PACKET_VERIFY] = RT_FORMAT_VERIFY_FIXED,
    [RT_FORMAT_PACKET_SNAPSHOT_BEGIN] = RT_FORMAT_SNAPSHOT_BEGIN_FIXED,
    [RT_FORMAT_PACKET_SNAPSHOT_END] = RT_FORMAT_SNAPSHOT_END_FIXED,
    [RT_FORMAT_PACKET_BUFFER_CONTENT] = RT_FORMAT_BUFFER_CONTENT_FIXED,
    [RT_FORMAT_PACKET_IMAGE_CONTENT] = RT_FORMAT_IMAGE_CONTENT_FIXED,
    [RT_FORMAT_PACKET_SYNC_STATE] = RT_FORMAT_SYNC_STATE_FIXED,
    [RT_FORMAT_PACKET_QUERY_STATE] = RT_FORMAT_QUERY_STATE_FIXED,
    [RT_FORMAT_PACKET_IMAGE_SAMPLES] = RT_FORMAT_IMAGE_SAMPLES_FIXED,
    [RT_FORMAT_PACKET_CALL_COMPACT] = RT_FORMAT_CALL_COMPACT_FIXED,
};
#define KNOWN_TYPES (sizeof fixed_sizes / sizeof fixed_sizes[0])

/* Checks one packet's body; returns a reason, or NULL when it is good. */
static const char *check_packet(const struct rt_trace_reader *r, uint16_t type, const uint8_t *b,
                                uint32_t size, uint64_t seq, struct block_counts *n)
{
    if (type == 0)
        return "packet type 0";
    if (type >= KNOWN_TYPES)
        return NULL; /* a newer minor's packet: skipped, it carries its length */
    if (size < fixed_sizes[type])
        return "packet shorter than its fixed fields";
    if (type == RT_FORMAT_PACKET_CALL || type == RT_FORMAT_PACKET_UNSUPPORTED ||
        type == RT_FORMAT_PACKET_CALL_COMPACT) {
        if (le32(b) >= r->header.command_count)
            return "command id outside the trace's command table";
        if (type != RT_FORMAT_PACKET_CALL_COMPACT && le64(b + 8) != seq)
            return "sequence number out of order";
        n->calls += type != RT_FORMAT_PACKET_UNSUPPORTED;
    } else if (type == RT_FORMAT_PACKET_FRAME_END) {
        if (le64(b) != r->progress.frames + n->frames + 1)
            return "frame number out of order";
        n->frames++;
    } else if (type == RT_FORMAT_PACKET_DEVICE_INFO) {
        struct rt_trace_device_info dev;
        struct rt_dec dec;
        rt_dec_init(&dec, b, size, NULL);
        if (!rt_format_decode_device(&dec, &dev))
            return "malformed device info";
    } else if (type == RT_FORMAT_PACKET_VERIFY) {
        return rt_trace_verify_check(b, size);
    } else if (type >= RT_FORMAT_PACKET_SNAPSHOT_BEGIN) {
        return rt_trace_snapshot_check(type, b, size, r->progress.frames + n->frames, &n->snapshot);
    }
    return NULL;
}

static rt_status check_packets(struct rt_trace_reader *r, uint64_t at,
                               const struct rt_block_header *h, const uint8_t *raw)
{
    if (h->first_seq != r->next_seq)
        return BLOCK_FAIL(r, at, "first sequence number %" PRIu64 ", expected %" PRIu64
                                 " (a block is missing or out of order)", h->first_seq, r->next_seq);
    struct block_counts n = {.snapshot = r->snapshot_stage};
    size_t pos = 0;
    while (pos < h->raw_size) {
        size_t left = h->raw_size - pos;
        if (left < RT_FORMAT_PACKET_HEADER_SIZE)
            return BLOCK_FAIL(r, at, "packet %" PRIu32 " at payload offset %zu: truncated header",
                              n.packets, pos);
        uint16_t type = le16(raw + pos);
        uint32_t size = le32(raw + pos + 2);
        if (size > left - RT_FORMAT_PACKET_HEADER_SIZE)
            return BLOCK_FAIL(r, at, "packet %" PRIu32 " at payload offset %zu: size %" PRIu32
                                     " runs past the block", n.packets, pos, size);
        const char *why = check_packet(r, type, raw + pos + RT_FORMAT_PACKET_HEADER_SIZE, size,
                                       h->first_seq + n.packets, &n);
        if (why)
            return BLOCK_FAIL(r, at, "packet %" PRIu32 " (type %u) at payload offset %zu: %s",
                              n.packets, type, pos, why);
        n.packets++;
        pos += RT_FORMAT_PACKET_HEADER_SIZE + size;
    }
    if (n.packets != h->packet_count || n.calls != h->call_count || n.frames != h->frame_count)
        return BLOCK_FAIL(r, at, "holds %" PRIu32 " packets, %" PRIu32 " calls, %" PRIu32
                                 " frames; its header says %" PRIu32 ", %" PRIu32 ", %" PRIu32,
                          n.packets, n.calls, n.frames, h->packet_count, h->call_count,
                          h->frame_count);
    r->snapshot_stage = n.snapshot;
    return rt_ok_status();
}

/* Reads blocks until one with packets (or the end block) is validated. */
static rt_status load_block(struct rt_trace_reader *r)
{
    for (;;) {
        uint64_t at = r->offset;
        r->block_number++;
        uint8_t head[RT_FORMAT_BLOCK_HEADER_SIZE];
        struct rt_block_header h;
        RT_TRY(check_block_header(r, at, head, read_into(r, head, sizeof head), &h));
        const uint8_t *stored;
        size_t got = fetch(r, h.stored_size, &stored);
        if (got < h.stored_size)
            return BLOCK_FAIL(r, at, "payload %s (%zu of %" PRIu32 " bytes)", short_read_reason(r),
                              got, h.stored_size);
        if (RT_CHECKSUMS_MATTER && rt_format_checksum(stored, h.stored_size) != h.payload_checksum)
            return BLOCK_FAIL(r, at, "payload checksum mismatch");
        if (h.type == RT_FORMAT_BLOCK_END)
            return finish_at_end(r, at, &h);
        if (h.type != RT_FORMAT_BLOCK_PACKETS) {
            r->progress.good_bytes = r->offset; /* a newer minor's block: skipped */
            continue;
        }
        const uint8_t *raw = NULL;
        RT_TRY(unpack_payload(r, at, &h, stored, &raw));
        RT_TRY(check_packets(r, at, &h, raw));
        r->pos = raw;
        r->left = h.raw_size;
        r->block_offset = at;
        r->seq = h.first_seq;
        r->next_seq = h.first_seq + h.packet_count;
        struct rt_trace_progress *p = &r->progress;
        p->good_bytes = r->offset;
        p->raw_bytes += RT_FORMAT_BLOCK_HEADER_SIZE + h.raw_size;
        p->blocks++;
        p->packets += h.packet_count;
        p->calls += h.call_count;
        p->frames += h.frame_count;
        return rt_ok_status();
    }
}

/* A CALL or CALL_COMPACT: the same fields but the sequence number, with
 * the return value last before the parameters in both. */
static void deliver_call(const uint8_t *b, uint32_t size, uint32_t fixed, struct rt_trace_packet *out)
{
    out->type = RT_TRACE_PACKET_CALL;
    out->u.call.command_id = le32(b);
    out->u.call.thread_id = le32(b + 4);
    out->u.call.return_value = le64(b + fixed - 8);
    out->u.call.params = b + fixed;
    out->u.call.size = size - fixed;
}

/* Fills out from a validated packet body. */
static void deliver(struct rt_trace_reader *r, uint16_t type, const uint8_t *b, uint32_t size,
                    struct rt_trace_packet *out)
{
    out->type = (enum rt_trace_packet_type)type;
    switch (type) {
    case RT_FORMAT_PACKET_CALL:
        deliver_call(b, size, RT_FORMAT_CALL_FIXED, out);
        break;
    case RT_FORMAT_PACKET_CALL_COMPACT: /* the same call to every reader's user */
        deliver_call(b, size, RT_FORMAT_CALL_COMPACT_FIXED, out);
        break;
    case RT_FORMAT_PACKET_MEMORY_UPDATE:
        out->u.memory.memory_id = le64(b);
        out->u.memory.offset = le64(b + 8);
        out->u.memory.data = b + RT_FORMAT_MEMORY_FIXED;
        out->u.memory.size = size - RT_FORMAT_MEMORY_FIXED;
        break;
    case RT_FORMAT_PACKET_FRAME_END:
        out->u.frame_end.frame = le64(b);
        break;
    case RT_FORMAT_PACKET_ANNOTATION:
        out->u.annotation.kind = le32(b);
        out->u.annotation.text = (const char *)b + RT_FORMAT_ANNOTATION_FIXED;
        out->u.annotation.length = size - RT_FORMAT_ANNOTATION_FIXED;
        break;
    case RT_FORMAT_PACKET_UNSUPPORTED:
        out->u.unsupported.command_id = le32(b);
        out->u.unsupported.thread_id = le32(b + 4);
        out->u.unsupported.reason = (const char *)b + RT_FORMAT_UNSUPPORTED_FIXED;
        out->u.unsupported.length = size - RT_FORMAT_UNSUPPORTED_FIXED;
        break;
    case RT_FORMAT_PACKET_DEVICE_INFO: {
        struct rt_dec dec;
        rt_dec_init(&dec, b, size, NULL);
        (void)rt_format_decode_device(&dec, &r->device); /* validated in check_packet */
        out->u.device = &r->device;
        break;
    }
    case RT_FORMAT_PACKET_SNAPSHOT_BEGIN:
    case RT_FORMAT_PACKET_SNAPSHOT_END:
    case RT_FORMAT_PACKET_BUFFER_CONTENT:
    case RT_FORMAT_PACKET_IMAGE_CONTENT:
    case RT_FORMAT_PACKET_SYNC_STATE:
    case RT_FORMAT_PACKET_QUERY_STATE:
    case RT_FORMAT_PACKET_IMAGE_SAMPLES:
        out->u.snapshot.body = b;
        out->u.snapshot.size = size;
        break;
    case RT_FORMAT_PACKET_VERIFY:
        out->u.verify.count = le32(b);
        out->u.verify.ranges = b + RT_FORMAT_VERIFY_FIXED;
        out->u.verify.size = size - RT_FORMAT_VERIFY_FIXED;
        break;
    }
}

rt_status rt_trace_reader_next(struct rt_trace_reader *r, struct rt_trace_packet *out)
{
    memset(out, 0, sizeof *out);
    if (r->failed)
        return rt_status_copy(&r->error);
    for (;;) {
        if (r->left == 0) {
            if (r->progress.ended) {
                out->type = RT_TRACE_PACKET_END;
                return rt_ok_status();
            }
            RT_TRY(load_block(r));
            continue;
        }
        /* Framing was validated by check_packets: these reads stay inside. */
        uint16_t type = le16(r->pos);
        uint32_t size = le32(r->pos + 2);
        const uint8_t *body = r->pos + RT_FORMAT_PACKET_HEADER_SIZE;
        r->pos = body + size;
        r->left -= RT_FORMAT_PACKET_HEADER_SIZE + size;
        uint64_t seq = r->seq++;
        if (type >= KNOWN_TYPES)
            continue;
        out->seq = seq;
        out->offset = r->block_offset;
        deliver(r, type, body, size, out);
        return rt_ok_status();
    }
}

void rt_trace_reader_progress(const struct rt_trace_reader *r, struct rt_trace_progress *out)
{
    *out = r->progress;
}

const struct rt_trace_header *rt_trace_reader_header(const struct rt_trace_reader *r)
{
    return &r->header;
}

void rt_trace_reader_destroy(struct rt_trace_reader *r)
{
    if (!r)
        return;
    if (r->file)
        fclose(r->file);
    rt_arena_finish(&r->arena);
    rt_status_free(&r->error);
    free(r->stored);
    free(r->raw);
    ZSTD_freeDCtx(r->dctx);
    free(r);
}

static rt_status open_common(struct rt_trace_reader *r, struct rt_trace_reader **reader_out)
{
    rt_arena_init(&r->arena, 0, ARENA_LIMIT);
    rt_status s = read_file_header(r);
    if (!rt_ok(&s)) {
        rt_trace_reader_destroy(r);
        return s;
    }
    *reader_out = r;
    return s;
}

rt_status rt_trace_reader_open(const char *path, struct rt_trace_reader **reader_out)
{
    *reader_out = NULL;
    struct rt_trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->file = fopen(path, "rb");
    if (!r->file) {
        rt_status s = rt_errorf(RT_ERR_BAD_INPUT, "cannot open: %s", strerror(errno));
        free(r);
        return s;
    }
    struct stat st;
    bool regular = fstat(fileno(r->file), &st) == 0 && S_ISREG(st.st_mode);
    r->file_size = regular ? (uint64_t)st.st_size : UINT64_MAX; /* pipes stream */
    return open_common(r, reader_out);
}

rt_status rt_trace_reader_open_memory(const void *data, size_t size,
                                      struct rt_trace_reader **reader_out)
{
    static const uint8_t nothing[1];
    *reader_out = NULL;
    struct rt_trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->mem = data ? data : nothing;
    r->mem_size = data ? size : 0;
    return open_common(r, reader_out);
}
