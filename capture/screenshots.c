/* capture/screenshots.c — loads the screenshot module beside the layer
 * (screenshots.h). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "screenshots.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct capture_screenshots *loaded;

static void load(void)
{
    Dl_info self;
    char path[PATH_MAX];
    if (!dladdr((const void *)capture_screenshots, &self) || !self.dli_fname) {
        rt_log(RT_LOG_ERROR, "capture: screenshots: cannot tell where the layer was loaded from");
        return;
    }
    const char *slash = strrchr(self.dli_fname, '/');
    int dir = slash ? (int)(slash - self.dli_fname) : 1;
    const char *dir_name = slash ? self.dli_fname : ".";
    if (snprintf(path, sizeof path, "%.*s/%s", dir, dir_name, CAPTURE_SCREENSHOTS_LIBRARY) >= (int)sizeof path) {
        rt_log(RT_LOG_ERROR, "capture: screenshots: the layer's folder name is too long");
        return;
    }
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        rt_log(RT_LOG_ERROR, "capture: screenshots need %s: %s", path, dlerror());
        return;
    }
    loaded = dlsym(module, CAPTURE_SCREENSHOTS_SYMBOL);
    if (!loaded)
        rt_log(RT_LOG_ERROR, "capture: screenshots: %s has no %s", path, CAPTURE_SCREENSHOTS_SYMBOL);
}

const struct capture_screenshots *capture_screenshots(void)
{
    pthread_once(&once, load);
    return loaded;
}
