/*
 * trace/trace_internal.h — what writer.c, crash.c, reader.c and format.c
 * share: the block header's in-memory form, header/device (de)serialisation
 * and the writer's state. Not a public header: only trace/ and the trace
 * tests (which craft hostile files) include it.
 */
#ifndef RT_TRACE_INTERNAL_H
#define RT_TRACE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "codec.h"
#include "format.h"
#include "trace.h"

/* The fuzz harness compiles the reader with RT_FUZZ_IGNORE_CHECKSUMS so that
 * mutated inputs get past the checksums into the parsing behind them (as
 * libpng ignores CRCs under fuzzing). Never defined in a real build. */
#ifdef RT_FUZZ_IGNORE_CHECKSUMS
#define RT_CHECKSUMS_MATTER 0
#else
#define RT_CHECKSUMS_MATTER 1
#endif

struct rt_block_header {
    uint8_t type, compression;
    uint16_t flags;
    uint32_t stored_size, raw_size;
    uint32_t packet_count, call_count, frame_count;
    uint64_t first_seq;
    uint64_t payload_checksum; /* XXH3_64 of the stored payload */
};

/** Writes the 48-byte block header with its header checksum. Async-signal-safe. */
void rt_format_block_header_pack(const struct rt_block_header *h,
                                 uint8_t out[RT_FORMAT_BLOCK_HEADER_SIZE]);

/** Parses a block header; false if the magic or the header checksum is wrong
 * (*bad_magic_out says which). */
bool rt_format_block_header_unpack(const uint8_t in[RT_FORMAT_BLOCK_HEADER_SIZE],
                                   struct rt_block_header *h, bool *bad_magic_out);

/** XXH3_64 of a payload (the checksum every block carries). */
uint64_t rt_format_checksum(const void *data, size_t size);

/** The checksum in the file header: covers the 20 header bytes before it and the body. */
uint64_t rt_format_header_checksum(const uint8_t prefix[20], const void *body, size_t size);

/** Appends a whole file header (fixed part + body) to enc. */
void rt_format_encode_file_header(struct rt_enc *enc, const struct rt_trace_header *h);

void rt_format_encode_device(struct rt_enc *enc, const struct rt_trace_device_info *d);
/** False (dec->failed set) if the encoding is short or a count/length is out of range. */
bool rt_format_decode_device(struct rt_dec *dec, struct rt_trace_device_info *d);
/* verify.c: why a verify packet's body is malformed, or NULL. */
const char *rt_trace_verify_check(const uint8_t *body, size_t size);

/** Decodes a header body (after the fixed part) into h; strings go to dec's arena. */
bool rt_format_decode_header_body(struct rt_dec *dec, struct rt_trace_header *h);

/* ------------------------------------------------------------- writer state */

#define RT_WRITER_SLOTS 16 /* sealed blocks in flight; more means back-pressure */

enum rt_slot_state {
    RT_SLOT_FREE = 0,
    RT_SLOT_QUEUED,    /* sealed, waiting for the writer thread */
    RT_SLOT_WRITING,   /* claimed by the writer thread */
    RT_SLOT_WRITTEN,   /* on disk */
    RT_SLOT_EMERGENCY, /* claimed by the emergency flush */
};

enum rt_slot_kind { RT_SLOT_HEADER, RT_SLOT_PACKETS, RT_SLOT_END };

/* One sealed block. The state and index are atomics because the emergency
 * flush reads slots from a signal handler without taking the lock. */
struct rt_writer_slot {
    _Atomic int state;
    _Atomic uint64_t index;  /* which sealed block this slot holds */
    _Atomic uint64_t offset; /* where the writer thread is writing it */
    enum rt_slot_kind kind;
    uint8_t *data; /* raw bytes (the header slot: the whole file header) */
    size_t size, capacity;
    uint32_t packets, calls, frames;
    uint64_t first_seq;
};

struct rt_trace_writer {
    pthread_mutex_t lock;
    pthread_cond_t wake_writer; /* a slot was sealed, or closing */
    pthread_cond_t slot_freed;  /* back-pressure waiters */
    pthread_t thread;
    _Atomic pid_t writer_tid; /* so the emergency flush knows it interrupted it */
    int fd;
    char *path, *part_path;
    int compression; /* enum rt_format_compression */
    int level;
    size_t block_size;
    uint32_t frame_seal_ms;   /* see rt_trace_writer_options */
    uint64_t block_opened_ms; /* CLOCK_MONOTONIC_COARSE at the block's first packet */

    /* Under lock. */
    struct rt_trace_header header; /* strings owned (strdup), names too */
    bool header_sealed, closing, finished;
    struct rt_enc header_bytes; /* the encoded header, kept current until sealed,
                                   so the emergency flush can write it */
    struct rt_enc block; /* the block being filled */
    uint32_t packets, calls, frames;
    uint64_t first_seq, next_seq, frame_number;
    struct rt_trace_writer_stats stats;
    rt_status error; /* first I/O or memory error */

    struct rt_writer_slot slots[RT_WRITER_SLOTS];
    _Atomic uint64_t seal_index;  /* blocks sealed so far */
    _Atomic uint64_t write_index; /* blocks written and released */
    _Atomic uint64_t durable_end; /* file offset after the last written block */
    _Atomic bool failed;          /* error is set */
    _Atomic bool emergency;       /* the emergency flush has started */
    _Atomic bool emergency_done;  /* ... and has finished the file */
    _Atomic pid_t emergency_tid;  /* the thread running it */

    /* Writer thread only. */
    void *cctx;
    uint8_t *zbuf;
    size_t zcap;
};

/** Appends a packet whose body the caller encoded (snapshot.c); not CALL,
 * UNSUPPORTED or FRAME_END, whose numbers the writer assigns. */
rt_status rt_trace_writer_raw_packet(struct rt_trace_writer *w, uint16_t type, const void *body, size_t size);

/** Re-encodes w->header into w->header_bytes (lock held, header not sealed). */
void rt_writer_encode_header_locked(struct rt_trace_writer *w);

/** Seals the in-progress block (lock held); used by the exit() handler. */
void rt_writer_seal_locked(struct rt_trace_writer *w);

/** Records the writer's first error (lock held) and returns s. */
rt_status rt_writer_fail_locked(struct rt_trace_writer *w, rt_status s);

/** pwrite(2) until all SIZE bytes are at OFFSET (retrying EINTR and short
 * writes). Async-signal-safe: the emergency flush uses it too. */
bool rt_writer_pwrite_all(int fd, const void *data, size_t size, uint64_t offset);

#endif
