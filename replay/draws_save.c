/* replay/draws_save.c — the staging copies of a dump: saved (readback/, as
 * --readbacks saves) once the submission that ran them is done, freed when
 * their command buffer is recorded again or goes; and DIR/draws.json. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "draws.h"
#include "log.h"

rt_status replay_draws_add_copy(struct replay *r, struct draw_cmdbuf *cb, const struct draw_copy *c)
{
    if (cb->copy_count == cb->copy_capacity) {
        size_t n = cb->copy_capacity ? cb->copy_capacity * 2 : 8;
        struct draw_copy *grown = realloc(cb->copies, n * sizeof *grown);
        if (!grown)
            return rt_errorf(RT_ERR_INTERNAL, "call %" PRIu64 ": out of memory", r->call_seq);
        cb->copies = grown;
        cb->copy_capacity = n;
    }
    cb->copies[cb->copy_count++] = *c;
    return rt_ok_status();
}

static const char *format_name(VkFormat format)
{
    const struct rt_vk_enum_desc *e = &rt_vk_enums[RT_VK_ENUM_VkFormat];
    for (uint32_t i = 0; i < e->count; i++)
        if (e->values[i].value == (int64_t)format)
            return e->values[i].full;
    return "unknown";
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool add_file(cJSON *entry, const struct draw_copy *c, const char *written)
{
    char id[24];
    snprintf(id, sizeof id, "0x%" PRIx64, c->image);
    cJSON *f = cJSON_CreateObject();
    if (!f || !cJSON_AddItemToArray(cJSON_GetObjectItem(entry, "files"), f)) {
        cJSON_Delete(f);
        return false;
    }
    return cJSON_AddStringToObject(f, "path", base_name(written)) && cJSON_AddStringToObject(f, "role", c->role) &&
           (c->image ? cJSON_AddStringToObject(f, "image", id) : cJSON_AddNullToObject(f, "image")) &&
           cJSON_AddStringToObject(f, "format", format_name(c->format)) &&
           cJSON_AddNumberToObject(f, "width", c->width) && cJSON_AddNumberToObject(f, "height", c->height) &&
           (c->samples <= 1 || cJSON_AddNumberToObject(f, "resolved_from_samples", c->samples));
}

/* A buffer's sidecar: which buffer, where, how much; through cJSON as every JSON retrace writes. */
static char *buffer_sidecar(const struct draw_copy *c)
{
    char id[24];
    snprintf(id, sizeof id, "0x%" PRIx64, c->source);
    cJSON *o = cJSON_CreateObject();
    char *text = o && cJSON_AddStringToObject(o, "buffer", id) &&
                         cJSON_AddNumberToObject(o, "offset", (double)c->source_offset) &&
                         cJSON_AddNumberToObject(o, "size", (double)c->bytes) &&
                         cJSON_AddNumberToObject(o, "set", c->set) && cJSON_AddNumberToObject(o, "binding", c->binding)
                     ? cJSON_PrintUnformatted(o)
                     : NULL;
    cJSON_Delete(o);
    return text;
}

/* A buffer's bytes: STEM.bin and its sidecar STEM.json. */
static rt_status save_raw(const struct draw_copy *c, const void *bytes, const char *stem, char *written,
                          size_t size)
{
    char side[PATH_MAX + 8];
    snprintf(written, size, "%s.bin", stem);
    snprintf(side, sizeof side, "%s.json", stem);
    FILE *f = fopen(written, "wb");
    bool ok = f && fwrite(bytes, 1, c->bytes, f) == c->bytes;
    if (f && fclose(f))
        ok = false;
    char *text = ok ? buffer_sidecar(c) : NULL;
    FILE *j = text ? fopen(side, "w") : NULL;
    ok = j && fprintf(j, "%s\n", text) > 0;
    if (j && fclose(j))
        ok = false;
    cJSON_free(text);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", written, strerror(errno));
}

static bool add_buffer_file(cJSON *entry, const struct draw_copy *c, const char *written)
{
    char id[24];
    snprintf(id, sizeof id, "0x%" PRIx64, c->source);
    cJSON *f = cJSON_CreateObject();
    if (!f || !cJSON_AddItemToArray(cJSON_GetObjectItem(entry, "files"), f)) {
        cJSON_Delete(f);
        return false;
    }
    return cJSON_AddStringToObject(f, "path", base_name(written)) && cJSON_AddStringToObject(f, "role", c->role) &&
           cJSON_AddStringToObject(f, "buffer", id) && cJSON_AddNumberToObject(f, "offset", (double)c->source_offset) &&
           cJSON_AddNumberToObject(f, "size", (double)c->bytes);
}

static rt_status save_one(struct replay *r, const struct replay_device *dev, struct draw_copy *c)
{
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    int number = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(c->entry, "draw"));
    char stem[PATH_MAX], written[PATH_MAX + 8];
    snprintf(stem, sizeof stem, "%s/draw_%04d_%s", r->draws->opts->dir, number, c->role);
    void *bytes = NULL;
    if (d->vkMapMemory(dev->handle, c->memory, 0, VK_WHOLE_SIZE, 0, &bytes) != VK_SUCCESS)
        return rt_errorf(RT_ERR_INTERNAL, "%s: cannot map the staging buffer", stem);
    size_t size = c->raw ? c->bytes : rt_readback_copy_size(c->format, c->aspect, c->width, c->height, 0);
    rt_status s = c->raw ? save_raw(c, bytes, stem, written, sizeof written)
                         : rt_readback_save(c->format, c->aspect, bytes, size, c->width, c->height, 0, stem,
                                            written, sizeof written);
    d->vkUnmapMemory(dev->handle, c->memory);
    c->saved = true;
    if (!rt_ok(&s)) { /* said in the index and as a warning; the replay goes on */
        rt_log(RT_LOG_WARN, "replay: draw image not saved: %s", s.msg);
        cJSON *why = cJSON_CreateString(s.msg);
        if (why)
            cJSON_AddItemToArray(cJSON_GetObjectItem(c->entry, "not_saved"), why);
        rt_status_free(&s);
        return rt_ok_status();
    }
    r->result->draw_images++;
    bool added = c->raw ? add_buffer_file(c->entry, c, written) : add_file(c->entry, c, written);
    return added ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

rt_status replay_draws_save(struct replay *r, struct draw_cmdbuf *cb)
{
    const struct replay_device *dev = cb->dev;
    bool waited = false;
    for (size_t i = 0; dev && i < cb->copy_count; i++) {
        if (cb->copies[i].saved)
            continue;
        if (!waited)
            dev->dispatch.device.vkDeviceWaitIdle(dev->handle);
        waited = true;
        RT_TRY(save_one(r, dev, &cb->copies[i]));
    }
    return rt_ok_status();
}

void replay_draws_release(struct replay *r, struct draw_cmdbuf *cb)
{
    const struct replay_device *dev = cb->copy_count ? cb->dev : NULL;
    if (dev)
        dev->dispatch.device.vkDeviceWaitIdle(dev->handle); /* the copies may still be running */
    for (size_t i = 0; dev && i < cb->copy_count; i++) {
        if (cb->copies[i].buffer)
            dev->dispatch.device.vkDestroyBuffer(dev->handle, cb->copies[i].buffer, NULL);
        if (cb->copies[i].memory)
            dev->dispatch.device.vkFreeMemory(dev->handle, cb->copies[i].memory, NULL);
        replay_draws_resolve_free(dev, &cb->copies[i].resolve); /* its views of temp first */
        if (cb->copies[i].temp)
            dev->dispatch.device.vkDestroyImage(dev->handle, cb->copies[i].temp, NULL);
        if (cb->copies[i].temp_memory)
            dev->dispatch.device.vkFreeMemory(dev->handle, cb->copies[i].temp_memory, NULL);
    }
    for (size_t i = 0; r->draws && i < cb->copy_count; i++)
        r->draws->staging_bytes -= cb->copies[i].bytes;
    cb->copy_count = 0;
}

rt_status replay_draws_write_index(struct replay *r)
{
    cJSON *index = r->draws->index;
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/draws.json", r->draws->opts->dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    if (!cJSON_AddNumberToObject(index, "frame_draws", (double)r->result->frame_draws) ||
        !cJSON_AddStringToObject(index, "trace", base_name(r->opts->trace_path)) ||
        !cJSON_AddStringToObject(index, "device", r->gpu_properties.deviceName))
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    char *text = cJSON_Print(index);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = f && !fclose(f) && ok && !rename(tmp, path);
    free(text);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", path, strerror(errno));
}
