/* replay/pipeline_cache.c — --pipeline-cache FILE: one VkPipelineCache per
 * replay, loaded from FILE when the device is created, used by every pipeline
 * the trace creates, and saved when the device goes away. A file that cannot
 * be used gives an empty cache and one notice line, never a failed replay.
 * Saving writes a temporary file in the same directory, fsyncs it and renames
 * it over FILE, so two replays saving at once leave one whole file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pipeline_cache.h"
#include "replay_config.h"

#define MAX_FILE_SIZE ((size_t)1 << 30)
#define CACHE_ID_BASE 0x7274706300000000ull /* "rtpc": no captured handle id looks like it */

struct replay_pipeline_cache {
    struct replay_device *dev; /* first: configure.c finds the device's cache by it */
    VkPipelineCache live;
    uint64_t id;
    const char *path;
};

static void identity(const struct replay *r, struct rt_pipeline_cache_identity *id)
{
    *id = (struct rt_pipeline_cache_identity){r->gpu_properties.vendorID, r->gpu_properties.deviceID,
                                              r->gpu_properties.driverVersion, (uint32_t)sizeof(void *)};
    memcpy(id->uuid, r->gpu_properties.pipelineCacheUUID, 16);
}

static void notice(struct replay *r, const char *path, const char *why)
{
    snprintf(r->result->outcome.pipeline_cache_notice, sizeof r->result->outcome.pipeline_cache_notice,
             "pipeline cache %.200s: %.200s; starting with an empty cache", path, why);
    fprintf(stderr, "retrace: notice: %s\n", r->result->outcome.pipeline_cache_notice);
}

/* The whole file, or NULL with the reason in WHY. */
static uint8_t *read_file(const char *path, size_t *size_out, char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s", errno == ENOENT ? "missing" : strerror(errno));
        return NULL;
    }
    struct stat st;
    uint8_t *bytes = NULL;
    if (fstat(fileno(f), &st) != 0 || (size_t)st.st_size > MAX_FILE_SIZE)
        snprintf(why, why_size, "unreadable or larger than 1 GiB");
    else if (!(bytes = malloc((size_t)st.st_size + 1)))
        snprintf(why, why_size, "out of memory");
    else if (fread(bytes, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        snprintf(why, why_size, "read error");
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size_out = bytes ? (size_t)st.st_size : 0;
    return bytes;
}

/* The driver's data of FILE, or NULL after a notice. */
static uint8_t *load(struct replay *r, const char *path, const uint8_t **data, size_t *size)
{
    char why[256];
    size_t file_size;
    uint8_t *bytes = read_file(path, &file_size, why, sizeof why);
    if (!bytes) {
        notice(r, path, why);
        return NULL;
    }
    struct rt_pipeline_cache_identity id;
    identity(r, &id);
    rt_status s = rt_pipeline_cache_check(bytes, file_size, &id, data, size);
    if (!rt_ok(&s)) {
        notice(r, path, s.msg);
        rt_status_free(&s);
        free(bytes);
        return NULL;
    }
    return bytes;
}

rt_status replay_pipeline_cache_open(struct replay *r, struct replay_device *dev, struct replay_pipeline_cache **out)
{
    struct replay_pipeline_cache *c = calloc(1, sizeof *c);
    if (!c)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *c = (struct replay_pipeline_cache){.dev = dev, .id = CACHE_ID_BASE + 1, .path = r->config->cfg->pipeline_cache};
    const uint8_t *data = NULL;
    size_t size = 0;
    uint8_t *bytes = NULL;
    if (!replay_no_pipeline_cache_skips_file(r))
        bytes = load(r, c->path, &data, &size);
    const struct rt_vk_device_dispatch *d = &dev->dispatch.device;
    VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, .initialDataSize = size,
                                      .pInitialData = data};
    VkResult vr = d->vkCreatePipelineCache(dev->handle, &info, NULL, &c->live);
    if (vr != VK_SUCCESS && bytes) { /* the driver refused the data: start empty */
        notice(r, c->path, "the driver rejected its data");
        info.initialDataSize = 0;
        info.pInitialData = NULL;
        vr = d->vkCreatePipelineCache(dev->handle, &info, NULL, &c->live);
        size = 0;
    }
    free(bytes);
    if (vr != VK_SUCCESS) {
        free(c);
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkCreatePipelineCache failed (%s)", replay_result_name(vr));
    }
    r->result->outcome.pipeline_cache_loaded = size;
    if (!rt_typed_map_put(&r->handles, VK_OBJECT_TYPE_PIPELINE_CACHE, c->id, (uint64_t)c->live)) {
        d->vkDestroyPipelineCache(dev->handle, c->live, NULL);
        free(c);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    *out = c;
    return rt_ok_status();
}

uint64_t replay_pipeline_cache_id(const struct replay_pipeline_cache *c) { return c->id; }

static bool write_all(int fd, const void *p, size_t n)
{
    for (const uint8_t *b = p; n;) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* Temporary file in FILE's directory, fsync, rename, fsync the directory. */
static rt_status save_file(const char *path, const uint8_t header[RT_PIPELINE_CACHE_HEADER_SIZE], const void *data,
                           size_t size)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return rt_errorf(RT_ERR_USAGE, "--pipeline-cache path is too long");
    int fd = mkstemp(tmp);
    if (fd < 0)
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", tmp, strerror(errno));
    bool ok = fchmod(fd, 0644) == 0 && write_all(fd, header, RT_PIPELINE_CACHE_HEADER_SIZE) && write_all(fd, data, size) && fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        err = ok ? errno : err;
        unlink(tmp);
        return rt_errorf(RT_ERR_INTERNAL, "cannot write %s: %s", path, strerror(err));
    }
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd); /* the rename itself survives a crash */
        close(dfd);
    }
    return rt_ok_status();
}

static rt_status save(struct replay *r, struct replay_pipeline_cache *c)
{
    const struct rt_vk_device_dispatch *d = &c->dev->dispatch.device;
    size_t size = 0;
    if (d->vkGetPipelineCacheData(c->dev->handle, c->live, &size, NULL) != VK_SUCCESS)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "vkGetPipelineCacheData failed");
    uint8_t *data = malloc(size ? size : 1);
    if (!data)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    VkResult vr = d->vkGetPipelineCacheData(c->dev->handle, c->live, &size, data);
    rt_status s = rt_ok_status();
    if (vr != VK_SUCCESS)
        s = rt_errorf(RT_ERR_CANNOT_REPLAY, "vkGetPipelineCacheData failed (%s)", replay_result_name(vr));
    if (rt_ok(&s)) {
        struct rt_pipeline_cache_identity id;
        uint8_t header[RT_PIPELINE_CACHE_HEADER_SIZE];
        identity(r, &id);
        rt_pipeline_cache_header(header, &id, data, size);
        s = save_file(c->path, header, data, size);
    }
    if (rt_ok(&s))
        r->result->outcome.pipeline_cache_saved = size;
    free(data);
    return s;
}

void replay_pipeline_cache_close(struct replay *r, struct replay_pipeline_cache *c)
{
    rt_status s = save(r, c);
    if (!rt_ok(&s))
        rt_log(RT_LOG_WARN, "pipeline cache not saved: %s", s.msg);
    rt_status_free(&s);
    c->dev->dispatch.device.vkDestroyPipelineCache(c->dev->handle, c->live, NULL);
    free(c);
}
