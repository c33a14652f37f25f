/*
 * gen/vkcodec_print.c — the text form of calls and structs for `retrace dump`.
 *
 * vkCreateBuffer(device=<VkDevice 1>, pCreateInfo={sType=BUFFER_CREATE_INFO,
 * pNext=NULL, flags=0, size=65536, usage=VERTEX_BUFFER|TRANSFER_DST, ...},
 * pAllocator=NULL, pBuffer=<VkBuffer 7>) = VK_SUCCESS
 *
 * A pointer to one element prints the element; arrays print as [a, b];
 * handles go through the caller's namer so dumps number them stably.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "vkcodec_internal.h"

struct sink {
    FILE *file;
    char *buf;
    size_t size;
    size_t len; /* bytes the full text needs */
    const struct rt_vk_print_opts *opts;
    unsigned depth;
};

__attribute__((format(printf, 2, 3))) static void put(struct sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (s->file) {
        int n = vfprintf(s->file, fmt, ap);
        s->len += n > 0 ? (size_t)n : 0;
    } else {
        size_t room = s->len < s->size ? s->size - s->len : 0;
        int n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
        s->len += n > 0 ? (size_t)n : 0;
    }
    va_end(ap);
}

static void print_struct(struct sink *s, const struct rt_vk_struct_desc *sd, const void *p, bool chain);

static const struct rt_vk_enum_value *enum_find(const struct rt_vk_enum_desc *e, int64_t v)
{
    for (uint32_t i = 0; i < e->count; i++)
        if (e->values[i].value == v)
            return &e->values[i];
    return NULL;
}

static void print_enum(struct sink *s, const struct rt_vk_member *m, int64_t v, bool full)
{
    const struct rt_vk_enum_value *ev = m->aux >= 0 ? enum_find(&rt_vk_enums[m->aux], v) : NULL;
    if (ev)
        put(s, "%s", full ? ev->full : ev->name);
    else
        put(s, "%" PRId64, v);
}

static void print_flags(struct sink *s, const struct rt_vk_member *m, uint64_t v)
{
    if (v == 0 || m->aux < 0) {
        put(s, v ? "0x%" PRIx64 : "0", v);
        return;
    }
    const struct rt_vk_enum_desc *e = &rt_vk_enums[m->aux];
    const char *sep = "";
    for (uint32_t i = 0; i < e->count; i++) {
        uint64_t bit = (uint64_t)e->values[i].value;
        if (bit && (bit & (bit - 1)) == 0 && (v & bit)) {
            put(s, "%s%s", sep, e->values[i].name);
            v &= ~bit;
            sep = "|";
        }
    }
    if (v)
        put(s, "%s0x%" PRIx64, sep, v);
}

static const char *handle_type_name(int32_t type)
{
    for (uint32_t i = 0; i < rt_vk_object_type_name_count; i++)
        if (rt_vk_object_type_names[i].type == type)
            return rt_vk_object_type_names[i].name;
    return "handle";
}

static void print_handle(struct sink *s, const struct rt_vk_member *m, uint64_t id)
{
    if (id == 0) {
        put(s, "VK_NULL_HANDLE");
        return;
    }
    const struct rt_vk_print_opts *o = s->opts;
    uint64_t shown = o && o->namer ? o->namer(o->user, (VkObjectType)m->aux, id) : id;
    put(s, "<%s %" PRIu64 ">", handle_type_name(m->aux), shown);
}

static void print_scalar(struct sink *s, const struct rt_vk_member *m, uint64_t v)
{
    switch (m->kind) {
    case RT_VK_KIND_SINT:
        put(s, "%" PRId64, m->elem_size == 8 ? (int64_t)v : m->elem_size == 4 ? (int64_t)(int32_t)v
                         : m->elem_size == 2 ? (int64_t)(int16_t)v : (int64_t)(int8_t)v);
        break;
    case RT_VK_KIND_FLOAT: {
        double d;
        float f;
        if (m->elem_size == 4) {
            uint32_t b = (uint32_t)v;
            memcpy(&f, &b, 4);
            d = f;
        } else {
            memcpy(&d, &v, 8);
        }
        put(s, "%g", d);
        break;
    }
    case RT_VK_KIND_ENUM:
        print_enum(s, m, m->elem_size == 4 ? (int64_t)(int32_t)v : (int64_t)v, false);
        break;
    case RT_VK_KIND_FLAGS: print_flags(s, m, v); break;
    case RT_VK_KIND_HANDLE: print_handle(s, m, v); break;
    case RT_VK_KIND_OPAQUE:
    case RT_VK_KIND_FUNCPTR: put(s, v ? "0x%" PRIx64 : "NULL", v); break;
    default: put(s, "%" PRIu64, v); break;
    }
}

static void print_chain(struct sink *s, const void *node)
{
    if (!node) {
        put(s, "NULL");
        return;
    }
    uint32_t stype = (uint32_t)rt_vkc_load(node, 4);
    int idx = rt_vkc_stype_index(stype);
    if (idx < 0 || !rt_vk_structs[idx].compiled || s->depth >= RT_VKC_MAX_CHAIN) {
        put(s, "<unknown sType %" PRIu32 ">", stype);
        return;
    }
    print_struct(s, &rt_vk_structs[idx], node, true);
}

static void print_elem(struct sink *s, const struct rt_vk_member *m, const uint8_t *p)
{
    switch (m->kind) {
    case RT_VK_KIND_STRUCT: print_struct(s, rt_vkc_sub(m), p, false); break;
    case RT_VK_KIND_UNION: put(s, "<union %" PRIu32 " bytes>", rt_vkc_sub(m)->size); break;
    case RT_VK_KIND_PNEXT: print_chain(s, *(const void *const *)p); break;
    case RT_VK_KIND_STRING: {
        const char *str = *(const char *const *)p;
        put(s, str ? "\"%s\"" : "NULL", str);
        break;
    }
    default: print_scalar(s, m, rt_vkc_load(p, m->elem_size)); break;
    }
}

static void print_level(struct sink *s, const struct rt_vk_member *m, const void *base, const uint8_t *f,
                        unsigned level)
{
    uint32_t max = s->opts && s->opts->max_elems ? s->opts->max_elems : 64;
    if (level == m->depth) {
        if (m->kind == RT_VK_KIND_CHAR) {
            put(s, "\"%.*s\"", (int)strnlen((const char *)f, m->count), (const char *)f);
            return;
        }
        if (m->count > 1)
            put(s, "[");
        for (uint32_t i = 0; i < m->count && i < max; i++) {
            put(s, i ? ", " : "");
            print_elem(s, m, f + (size_t)i * m->elem_size);
        }
        put(s, m->count > max ? ", ...]" : m->count > 1 ? "]" : "");
        return;
    }
    const uint8_t *p = *(const uint8_t *const *)f;
    if (!p) {
        put(s, "NULL");
        return;
    }
    bool array = level == 0 && m->len;
    uint64_t n = array ? m->len(base) : 1;
    if (level + 1u == m->depth && m->kind == RT_VK_KIND_VOID) {
        put(s, "<%" PRIu64 " bytes>", n);
        return;
    }
    put(s, array ? "[" : "");
    for (uint64_t i = 0; i < n && i < max; i++) {
        put(s, i ? ", " : "");
        print_level(s, m, base, p + i * rt_vkc_stride(m, level), level + 1);
    }
    put(s, array ? (n > max ? ", ...]" : "]") : "");
}

static void print_member(struct sink *s, const struct rt_vk_struct_desc *sd, const struct rt_vk_member *m,
                         const uint8_t *base)
{
    put(s, "%s=", m->name);
    if (m->bits) {
        print_scalar(s, m, m->get(base));
    } else if (m->kind == RT_VK_KIND_UNION && m->selector >= 0 && m->depth == 0) {
        const struct rt_vk_struct_desc *u = rt_vkc_sub(m);
        const struct rt_vk_member *pick = rt_vkc_union_pick(u, rt_vkc_selector_value(sd, m, base));
        if (!pick) {
            put(s, "<union %" PRIu32 " bytes>", u->size);
            return;
        }
        put(s, "{");
        print_member(s, u, pick, base + m->offset);
        put(s, "}");
    } else {
        print_level(s, m, base, base + m->offset, 0);
    }
}

static void print_struct(struct sink *s, const struct rt_vk_struct_desc *sd, const void *p, bool chain)
{
    (void)chain;
    if (!sd->compiled || sd->is_union || s->depth >= RT_VKC_MAX_DEPTH + RT_VKC_MAX_CHAIN) {
        put(s, "<%s>", sd->name);
        return;
    }
    s->depth++;
    put(s, "{");
    for (uint32_t i = 0; i < sd->nmembers; i++) {
        put(s, i ? ", " : "");
        print_member(s, sd, &sd->members[i], p);
    }
    put(s, "}");
    s->depth--;
}

static void print_call(struct sink *s, enum rt_vk_cmd cmd, const void *args)
{
    const struct rt_vk_struct_desc *sd = rt_vkc_args_desc(cmd);
    if (!sd) {
        put(s, "%s(<not printable>)", rt_vk_cmd_name(cmd) ? rt_vk_cmd_name(cmd) : "?");
        return;
    }
    put(s, "%s(", rt_vk_commands[cmd].name);
    const struct rt_vk_member *result = NULL;
    for (uint32_t i = 0, shown = 0; i < sd->nmembers; i++) {
        const struct rt_vk_member *m = &sd->members[i];
        if (i + 1 == sd->nmembers && strcmp(m->name, "result") == 0) {
            result = m;
            break;
        }
        put(s, shown++ ? ", " : "");
        print_member(s, sd, m, args);
    }
    put(s, ")");
    if (result) {
        put(s, " = ");
        uint64_t v = rt_vkc_load((const uint8_t *)args + result->offset, result->elem_size);
        if (result->kind == RT_VK_KIND_ENUM)
            print_enum(s, result, (int64_t)(int32_t)v, true);
        else
            print_scalar(s, result, v);
    }
}

rt_status rt_vk_print_call(FILE *out, enum rt_vk_cmd cmd, const void *args,
                           const struct rt_vk_print_opts *opts)
{
    struct sink s = {.file = out, .opts = opts};
    if ((unsigned)cmd >= RT_VK_CMD_COUNT)
        return rt_errorf(RT_ERR_INTERNAL, "printing: command id %d out of range", (int)cmd);
    print_call(&s, cmd, args);
    if (ferror(out))
        return rt_errorf(RT_ERR_INTERNAL, "printing %s: write error", rt_vk_commands[cmd].name);
    return rt_ok_status();
}

size_t rt_vk_format_call(char *buf, size_t size, enum rt_vk_cmd cmd, const void *args,
                         const struct rt_vk_print_opts *opts)
{
    struct sink s = {.buf = buf, .size = size, .opts = opts};
    if (size)
        buf[0] = '\0';
    if ((unsigned)cmd < RT_VK_CMD_COUNT)
        print_call(&s, cmd, args);
    return s.len;
}

size_t rt_vk_format_struct(char *buf, size_t size, enum rt_vk_struct_type type, const void *value,
                           const struct rt_vk_print_opts *opts)
{
    struct sink s = {.buf = buf, .size = size, .opts = opts};
    if (size)
        buf[0] = '\0';
    if ((unsigned)type < RT_VK_STRUCT_COUNT)
        print_struct(&s, &rt_vk_structs[type], value, false);
    return s.len;
}
