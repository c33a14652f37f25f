/* capture/unrecorded.c — commands the layer hands out without a recorder.
 *
 * A name vk*GetProcAddr asks for that has no entry in the generated table
 * (a platform whose header the build lacked, an extension newer than our
 * vk.xml) is answered with the next layer's function: the program's calls to
 * it reach the driver and are never recorded, and a handle such a command
 * creates is unknown to replay. This is noticed at lookup time, never per
 * call: the first lookup of each such name prints one warning and leaves a
 * note annotation "not recorded: NAME" in the trace (gen/README.md),
 * which `info` lists and `info --check` names. The loader looks up every
 * command it knows while it builds its dispatch tables, so such a name was
 * looked up, not necessarily called. Commands of a Linux window system whose
 * header the build lacked are known from vk.xml: for them the lookup gives a
 * generated detector (gen/emit_capture.py) that says so at the first call
 * instead and passes every call on.
 *
 * Owns: the per-process list of such names. Must not touch: the hot path.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"

#define UNRECORDED_MAX 256 /* distinct names remembered; later ones are still passed through */

static struct {
    pthread_mutex_t lock;
    size_t count;
    char *names[UNRECORDED_MAX];
} unrecorded = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Whether NAME is new; remembers it. Under the lock. */
static bool first_time(const char *name)
{
    for (size_t i = 0; i < unrecorded.count; i++)
        if (!strcmp(unrecorded.names[i], name))
            return false;
    if (unrecorded.count == UNRECORDED_MAX)
        return false;
    char *copy = strdup(name);
    if (!copy)
        return false;
    unrecorded.names[unrecorded.count++] = copy;
    return true;
}

/* The first time NAME is seen: one warning and the trace's note. */
/* CREATES: whether NAME makes handles (the command table's CREATES, decided
 * by gen/ from vk.xml); UNKNOWN where vk.xml does not know NAME. */
enum unrecorded_kind { UNRECORDED_USES, UNRECORDED_CREATES, UNRECORDED_UNKNOWN };

static const char *consequence(enum unrecorded_kind kind)
{
    switch (kind) {
    case UNRECORDED_CREATES: return ", and a trace that uses a handle it made will not replay";
    case UNRECORDED_UNKNOWN: return "; if it makes handles, a trace that uses one will not replay";
    default: return "";
    }
}

static enum unrecorded_kind kind_of(const char *name)
{
    enum rt_vk_cmd cmd;
    if (!rt_vk_cmd_from_name(name, &cmd))
        return UNRECORDED_UNKNOWN;
    return rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_CREATES ? UNRECORDED_CREATES : UNRECORDED_USES;
}

static void note(const char *name, const char *how, enum unrecorded_kind kind)
{
    pthread_mutex_lock(&unrecorded.lock);
    bool fresh = first_time(name);
    pthread_mutex_unlock(&unrecorded.lock);
    if (!fresh)
        return;
    rt_log(RT_LOG_WARN, "capture: %s was %s and this build does not record it: its calls go to the driver "
           "unrecorded%s", name, how,
           consequence(kind));
    char text[320];
    snprintf(text, sizeof text, "not recorded: %s", name);
    capture_record_annotation(RT_TRACE_ANNOTATION_NOTE, text);
}

void capture_note_unrecorded(const char *name)
{
    if (strncmp(name, "vk", 2) == 0) /* else not a command name (a loader's private query) */
        note(name, "looked up", kind_of(name));
}

static int by_name(const void *key, const void *entry)
{
    return strcmp(key, ((const struct capture_detector *)entry)->name);
}

PFN_vkVoidFunction capture_unrecorded_detector(const char *name, PFN_vkVoidFunction next)
{
    const struct capture_detector *d =
        bsearch(name, capture_detectors, capture_detector_count, sizeof capture_detectors[0], by_name);
    if (!d)
        return NULL;
    atomic_store_explicit(d->next, next, memory_order_release);
    return d->function;
}

void capture_unrecorded_called(const char *name, bool creates)
{
    note(name, "called", creates ? UNRECORDED_CREATES : UNRECORDED_USES);
}

/* RETRACE_TEST_UNRECORDED=NAME: the layer answers NAME's lookups as a build
 * without its recorder would, so a test can make a real unrecorded call
 * (a build with every platform header has no such command). Lookups are
 * not hot: the variable is read at each one. */
bool capture_test_unrecorded(const char *name)
{
    const char *test = getenv("RETRACE_TEST_UNRECORDED");
    return test && name && !strcmp(test, name);
}
