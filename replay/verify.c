/* replay/verify.c — `retrace replay --verify`: the replay checks itself
 * against the capture.
 *
 * At every verification point (a verify packet: what the application read
 * back after a wait, hashed in pieces) the same bytes of the replay's memory
 * are hashed and compared; every vkGetQueryPoolResults the capture saw ready
 * is compared with the results the replay gets (the call's captured output
 * is in the trace), except timestamp and performance queries, which differ
 * from run to run, and queries a trimmed trace's snapshot made available
 * (their results are the snapshot's) until the frames reset them. Each divergence is printed with the call before it, the
 * memory object, offset, length and the bytes that differ. Whether a
 * divergence fails the replay is the CLI's decision (same kind of device). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "replay_internal.h"

#define MAX_PRINTED 20

const char rt_replay_verify_nothing_why[] =
    "the trace has no verification points (the program read nothing back from mapped memory after a wait, "
    "or it was captured with --memory-tracking full, which records none) and no query results";

bool rt_replay_verify_checked(const struct rt_replay_result *result)
{
    return result->verify_points || result->verify_queries;
}

struct replay_verify {
    uint64_t last_call_seq;
    enum rt_vk_cmd last_call;
    struct rt_hashmap query_types; /* live VkQueryPool -> VkQueryType */
    struct rt_hashmap made_queries; /* live VkQueryPool -> struct made_queries *: made by a snapshot */
    uint64_t captured_query_hash;  /* of the captured vkGetQueryPoolResults output */
    uint8_t captured_query_head[8]; /* its first bytes, to show */
    bool query_pending;
    uint8_t *buffer; /* the bytes of the range being checked */
    uint8_t *covered; /* which of them exist in this replay */
    size_t buffer_size;
    bool *differs; /* per piece of that range */
    size_t differs_size;
};

/* Queries a trimmed trace's snapshot made available (snapshot_apply.c):
 * their results are the snapshot's empty begin/end or new timestamp, not
 * the capture's, until the frames reset them. */
struct made_queries {
    uint32_t count;
    uint8_t made[];
};

static struct replay_verify *state(struct replay *r)
{
    if (!r->verify && (r->verify = calloc(1, sizeof *r->verify))) {
        rt_hashmap_init(&r->verify->query_types);
        rt_hashmap_init(&r->verify->made_queries);
    }
    return r->verify;
}

static void forget_made(struct replay_verify *v, uint64_t pool)
{
    uint64_t value;
    if (rt_hashmap_get(&v->made_queries, pool, &value)) {
        free((void *)(uintptr_t)value);
        rt_hashmap_remove(&v->made_queries, pool);
    }
}

void replay_verify_finish(struct replay *r)
{
    if (!r->verify)
        return;
    rt_hashmap_finish(&r->verify->query_types);
    struct rt_hashmap_iter it;
    uint64_t key, value;
    rt_hashmap_iter_init(&it, &r->verify->made_queries);
    while (rt_hashmap_iter_next(&it, &key, &value))
        free((void *)(uintptr_t)value);
    rt_hashmap_finish(&r->verify->made_queries);
    free(r->verify->buffer);
    free(r->verify->covered);
    free(r->verify->differs);
    free(r->verify);
    r->verify = NULL;
}

/* Prints one divergence and keeps the first for the CLI. */
static void diverged(struct replay *r, const char *what)
{
    struct rt_replay_result *res = r->result;
    const char *call = r->verify->last_call_seq ? rt_vk_cmd_name(r->verify->last_call) : "the start";
    char line[sizeof res->verify_first];
    snprintf(line, sizeof line, "after call %" PRIu64 " (%s): %s", r->verify->last_call_seq, call, what);
    if (!res->verify_divergences++)
        snprintf(res->verify_first, sizeof res->verify_first, "%s", line);
    if (res->verify_divergences <= MAX_PRINTED)
        rt_log(RT_LOG_WARN, "verify: %s", line);
    else if (res->verify_divergences == MAX_PRINTED + 1)
        rt_log(RT_LOG_WARN, "verify: more divergences follow; only their count is printed");
}

static bool ensure_buffers(struct replay_verify *v, size_t size, uint32_t pieces)
{
    if (v->buffer_size < size) {
        uint8_t *grown = realloc(v->buffer, size), *marks = grown ? realloc(v->covered, size) : NULL;
        if (grown)
            v->buffer = grown;
        if (!marks)
            return false;
        v->covered = marks;
        v->buffer_size = size;
    }
    if (v->differs_size < pieces) {
        bool *grown = realloc(v->differs, pieces * sizeof *grown);
        if (!grown)
            return false;
        v->differs = grown;
        v->differs_size = pieces;
    }
    return true;
}

static bool piece_differs(const struct rt_trace_verify_range *g, const uint8_t *bytes, uint32_t k)
{
    uint64_t lo = (uint64_t)k * g->piece_size;
    uint64_t n = g->size - lo < g->piece_size ? g->size - lo : g->piece_size;
    return rt_trace_hash(bytes + lo, n) != rt_trace_verify_piece_hash(g, k);
}

/* Names the bytes of a range whose pieces differ, as runs of pieces:
 * "0x0-0x1ff, 0x400-0x4ff (3 of 16 pieces of 256 bytes; here: 00 00 ...)". */
static void describe_pieces(const struct rt_trace_verify_range *g, const bool *differs, const uint8_t *bytes,
                            char *out, size_t size)
{
    uint32_t count = 0, runs = 0, first = UINT32_MAX;
    size_t used = 0;
    for (uint32_t k = 0; k < g->piece_count; k++) {
        if (!differs[k])
            continue;
        count++;
        first = first == UINT32_MAX ? k : first;
        if (k > 0 && differs[k - 1])
            continue; /* inside a run: printed with its end below */
        uint32_t end = k;
        while (end + 1 < g->piece_count && differs[end + 1])
            end++;
        uint64_t hi = (uint64_t)(end + 1) * g->piece_size < g->size ? (uint64_t)(end + 1) * g->piece_size : g->size;
        if (runs++ < 4 && used < size)
            used += (size_t)snprintf(out + used, size - used, "%s0x%" PRIx64 "-0x%" PRIx64, runs > 1 ? ", " : "",
                                     g->offset + (uint64_t)k * g->piece_size, g->offset + hi - 1);
    }
    size_t at = (size_t)first * g->piece_size, shown = g->size - at < 8 ? g->size - at : 8;
    if (used < size)
        used += (size_t)snprintf(out + used, size - used, "%s differ (%u of %u pieces of %u bytes; here:",
                                 runs > 4 ? ", ..." : "", count, g->piece_count, g->piece_size);
    for (size_t i = 0; i < shown && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, " %02x", bytes[at + i]);
    if (used < size)
        snprintf(out + used, size - used, "%s)", shown < g->size - at ? " ..." : "");
}

/* True when none of piece k's bytes exist in this replay (rebind mode: a
 * home the host cannot see, with no moved buffer over them): it cannot be checked. */
static bool piece_absent(const struct rt_trace_verify_range *g, const uint8_t *covered, uint32_t k)
{
    uint64_t lo = (uint64_t)k * g->piece_size;
    uint64_t n = g->size - lo < g->piece_size ? g->size - lo : g->piece_size;
    for (uint64_t i = 0; i < n; i++)
        if (covered[lo + i])
            return false;
    return true;
}

/* Marks the pieces that differ; returns how many. In rebind mode a piece
 * that one of the moved buffers aliasing those bytes reproduces is the same, and
 * pieces whose bytes do not exist here are counted as unchecked. */
static uint32_t compare_range(struct replay *r, const struct rt_trace_verify_range *g)
{
    struct replay_verify *v = r->verify;
    uint32_t count = 0;
    for (uint32_t k = 0; k < g->piece_count; k++) {
        bool absent = piece_absent(g, v->covered, k);
        r->result->verify_unchecked_bytes += absent ? (k + 1 < g->piece_count ? g->piece_size
                                                                               : g->size - k * g->piece_size) : 0;
        count += v->differs[k] = !absent && piece_differs(g, v->buffer, k);
    }
    uint8_t *other = count ? malloc(g->size) : NULL;
    for (unsigned alias = 1;
         other && count && replay_memory_read(r, g->memory_id, g->offset, g->size, alias, other, NULL); alias++)
        for (uint32_t k = 0; k < g->piece_count; k++)
            if (v->differs[k] && !piece_differs(g, other, k)) {
                v->differs[k] = false;
                count--;
            }
    free(other);
    return count;
}

static void check_range(struct replay *r, const struct rt_trace_verify_range *g)
{
    struct rt_replay_result *res = r->result;
    struct replay_verify *v = r->verify;
    res->verify_ranges++;
    res->verify_bytes += g->size;
    char what[512];
    if (!ensure_buffers(v, g->size, g->piece_count) ||
        !replay_memory_read(r, g->memory_id, g->offset, g->size, 0, v->buffer, v->covered)) {
        res->verify_unreadable++;
        snprintf(what, sizeof what, "memory 0x%" PRIx64 " offset 0x%" PRIx64 " length %u: not readable in this replay",
                 g->memory_id, g->offset, g->size);
        diverged(r, what);
        return;
    }
    if (!compare_range(r, g))
        return;
    char pieces[256];
    describe_pieces(g, v->differs, v->buffer, pieces, sizeof pieces);
    snprintf(what, sizeof what, "memory 0x%" PRIx64 " offset 0x%" PRIx64 " length %u: bytes %s", g->memory_id,
             g->offset, g->size, pieces);
    diverged(r, what);
}

static bool replay_verify_same_kind(const struct replay *r);

rt_status replay_verify_packet(struct replay *r, const struct rt_trace_packet *p)
{
    if (!r->opts->verify)
        return rt_ok_status();
    if (!state(r))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    r->result->verify_points++;
    r->result->verify_same_kind = replay_verify_same_kind(r);
    struct rt_trace_verify_cursor c;
    struct rt_trace_verify_range g;
    rt_trace_verify_begin(p, &c);
    while (rt_trace_verify_next(&c, &g))
        check_range(r, &g);
    return rt_ok_status();
}

void replay_verify_annotation(struct replay *r, const struct rt_trace_packet *p)
{
    if (p->u.annotation.kind != RT_TRACE_ANNOTATION_EXTERNAL_MEMORY)
        return;
    r->result->external_memory++;
    rt_log(RT_LOG_WARN, "replay: %.*s; the replay does not reproduce it", (int)p->u.annotation.length,
           p->u.annotation.text);
}

/* --- query results ------------------------------------------------------------ */

static bool query_type_varies(uint64_t type)
{
    return type == VK_QUERY_TYPE_TIMESTAMP || type == VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR ||
           type == VK_QUERY_TYPE_PERFORMANCE_QUERY_INTEL;
}

/* vkGetQueryPoolResults is the one command that reads query results into
 * host memory, so its argument block is the one read here. */
static bool reads_queries(enum rt_vk_cmd cmd) { return rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_READS_QUERIES; }

/* Creates or destroys query pools (vkCreateQueryPool, vkDestroyQueryPool). */
static bool query_pool_lifetime(enum rt_vk_cmd cmd)
{
    return rt_vk_commands[cmd].object_type == VK_OBJECT_TYPE_QUERY_POOL &&
           (rt_vk_cmd_flags(cmd) & (RT_VK_CMD_FLAG_CREATES | RT_VK_CMD_FLAG_DESTROYS));
}

void replay_verify_before_call(struct replay *r, enum rt_vk_cmd cmd, const void *args, uint64_t captured_result)
{
    if (!r->opts->verify || !state(r))
        return;
    r->verify->query_pending = false;
    if (!reads_queries(cmd) || (VkResult)(int32_t)captured_result != VK_SUCCESS)
        return;
    const struct rt_vk_args_vkGetQueryPoolResults *a = args;
    if (a->pData && a->dataSize) {
        r->verify->captured_query_hash = rt_trace_hash(a->pData, a->dataSize);
        memcpy(r->verify->captured_query_head, a->pData, a->dataSize < 8 ? a->dataSize : 8);
        r->verify->query_pending = true;
    }
}

/* The type of each live query pool: kept from create to destroy, so a
 * handle the driver reuses never carries a destroyed pool's type. */
static rt_status track_query_pool(struct replay_verify *v, enum rt_vk_cmd cmd, const void *args)
{
    if (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_DESTROYS) {
        const struct rt_vk_args_vkDestroyQueryPool *a = args;
        rt_hashmap_remove(&v->query_types, (uint64_t)(uintptr_t)a->queryPool);
        forget_made(v, (uint64_t)(uintptr_t)a->queryPool);
        return rt_ok_status();
    }
    const struct rt_vk_args_vkCreateQueryPool *a = args;
    if (a->result != VK_SUCCESS || !a->pQueryPool || !*a->pQueryPool)
        return rt_ok_status();
    if (!rt_hashmap_put(&v->query_types, (uint64_t)(uintptr_t)*a->pQueryPool, (uint64_t)a->pCreateInfo->queryType))
        return rt_errorf(RT_ERR_INTERNAL, "verify: out of memory recording a query pool");
    return rt_ok_status();
}

rt_status replay_verify_made_queries(struct replay *r, uint64_t pool, uint32_t count, const uint8_t *made)
{
    struct replay_verify *v = r->opts->verify ? state(r) : NULL;
    if (!v)
        return rt_ok_status();
    forget_made(v, pool);
    struct made_queries *m = malloc(sizeof *m + count);
    if (!m || !rt_hashmap_put(&v->made_queries, pool, (uint64_t)(uintptr_t)m)) {
        free(m);
        return rt_errorf(RT_ERR_INTERNAL, "verify: out of memory recording a snapshot's queries");
    }
    m->count = count;
    memcpy(m->made, made, count);
    return rt_ok_status();
}

/* A reset (recorded or from the host) ends the snapshot's results: what the
 * frames write next is theirs. Cleared when recorded, not when run: a
 * program reads a query before it records the next reset of it. */
static void reset_made(struct replay_verify *v, enum rt_vk_cmd cmd, const void *args)
{
    if (!(rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_RESETS_QUERIES))
        return;
    /* vkCmdResetQueryPool's block has vkResetQueryPool's layout (a dispatchable
     * handle, then pool, first, count): the category promises it */
    const struct rt_vk_args_vkResetQueryPool *a = args;
    uint64_t value;
    if (!rt_hashmap_get(&v->made_queries, (uint64_t)(uintptr_t)a->queryPool, &value))
        return;
    struct made_queries *m = (struct made_queries *)(uintptr_t)value;
    uint32_t first = a->firstQuery, count = a->queryCount;
    for (uint32_t i = first; i < m->count && i - first < count; i++)
        m->made[i] = 0;
}

static bool reads_made(const struct replay_verify *v, const struct rt_vk_args_vkGetQueryPoolResults *a)
{
    uint64_t value;
    if (!rt_hashmap_get(&v->made_queries, (uint64_t)(uintptr_t)a->queryPool, &value))
        return false;
    const struct made_queries *m = (const struct made_queries *)(uintptr_t)value;
    for (uint32_t i = a->firstQuery; i < m->count && i - a->firstQuery < a->queryCount; i++)
        if (m->made[i])
            return true;
    return false;
}

size_t replay_verify_query_pools(const struct replay *r)
{
    return r->verify ? rt_hashmap_count(&r->verify->query_types) : 0;
}

rt_status replay_verify_after_call(struct replay *r, enum rt_vk_cmd cmd, const void *args, uint64_t seq)
{
    if (!r->opts->verify || !r->verify)
        return rt_ok_status();
    struct replay_verify *v = r->verify;
    v->last_call_seq = seq;
    v->last_call = cmd;
    if (query_pool_lifetime(cmd))
        return track_query_pool(v, cmd, args);
    reset_made(v, cmd, args);
    if (!reads_queries(cmd) || !v->query_pending)
        return rt_ok_status();
    const struct rt_vk_args_vkGetQueryPoolResults *a = args;
    uint64_t type = 0;
    if (rt_hashmap_get(&v->query_types, (uint64_t)(uintptr_t)a->queryPool, &type) && query_type_varies(type))
        return rt_ok_status();
    if (reads_made(v, a))
        return rt_ok_status(); /* the snapshot's results, not the capture's */
    r->result->verify_queries++;
    r->result->verify_same_kind = replay_verify_same_kind(r);
    if (rt_trace_hash(a->pData, a->dataSize) != v->captured_query_hash) {
        char what[256], captured[32] = "", here[32] = "";
        for (size_t i = 0; i < 8 && i < a->dataSize; i++) {
            snprintf(captured + 3 * i, sizeof captured - 3 * i, " %02x", v->captured_query_head[i]);
            snprintf(here + 3 * i, sizeof here - 3 * i, " %02x", ((const uint8_t *)a->pData)[i]);
        }
        snprintf(what, sizeof what, "query results of queries %u-%u (%zu bytes) differ (captured:%s%s; here:%s%s)",
                 a->firstQuery, a->firstQuery + a->queryCount - 1, (size_t)a->dataSize, captured,
                 a->dataSize > 8 ? " ..." : "", here, a->dataSize > 8 ? " ..." : "");
        diverged(r, what);
    }
    return rt_ok_status();
}

/* The capture's kind of device: where a divergence is a regression rather
 * than a rasteriser's legitimate difference. */
static bool replay_verify_same_kind(const struct replay *r)
{
    const struct rt_trace_device_info *c = &r->header->device;
    return r->header->has_device && c->vendor_id == r->gpu_properties.vendorID &&
           c->device_id == r->gpu_properties.deviceID;
}
