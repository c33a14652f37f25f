/* replay/delays.c — injected delays: their specification
 * ("create-pipeline=25ms~5ms"), the seeded jitter sequence, the one-line
 * description of a configuration, and the CPU-side delays themselves (a sleep
 * before the call). The GPU-side stall is gpu_stall.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "replay_config.h"

#define MAX_DELAY_US (60ull * 1000 * 1000)

static const char *const event_names[RT_DELAY_EVENT_COUNT] = {
    [RT_DELAY_CREATE_PIPELINE] = "create-pipeline", [RT_DELAY_CREATE_SHADER] = "create-shader",
    [RT_DELAY_SUBMIT] = "submit",   [RT_DELAY_PRESENT] = "present",
    [RT_DELAY_ACQUIRE] = "acquire", [RT_DELAY_MAP] = "map",
    [RT_DELAY_WAIT] = "wait",       [RT_DELAY_GPU] = "gpu",
};

const char *rt_delay_event_name(enum rt_delay_event e)
{
    return (unsigned)e < RT_DELAY_EVENT_COUNT ? event_names[e] : "unknown";
}

bool rt_parse_duration_us(const char *text, uint64_t *us_out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"us", 1.0}, {"ms", 1e3}, {"s", 1e6}};
    if (!text || !(*text >= '0' && *text <= '9'))
        return false; /* no sign, no space, no bare unit */
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!strcmp(end, units[i].unit)) {
            double us = v * units[i].scale;
            if (!(us >= 0 && us <= (double)MAX_DELAY_US))
                return false;
            *us_out = (uint64_t)(us + 0.5);
            return true;
        }
    }
    return false;
}

static rt_status bad_delay(const char *spec, const char *why)
{
    return rt_errorf(RT_ERR_USAGE, "--delay: expected EVENT=DURATION[~JITTER] with EVENT one of create-pipeline, "
                     "create-shader, submit, present, acquire, map, wait, gpu and durations like 25ms, 500us or "
                     "1.5s (at most 60s), got '%s' (%s)", spec, why);
}

rt_status rt_replay_config_add_delay(struct rt_replay_config *config, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return bad_delay(spec, "no '='");
    int event = -1;
    for (int i = 0; i < RT_DELAY_EVENT_COUNT; i++)
        if (strlen(event_names[i]) == (size_t)(eq - spec) && !strncmp(spec, event_names[i], (size_t)(eq - spec)))
            event = i;
    if (event < 0)
        return bad_delay(spec, "unknown event");
    char duration[64] = "", jitter[64] = "";
    const char *tilde = strchr(eq + 1, '~');
    size_t dlen = tilde ? (size_t)(tilde - eq - 1) : strlen(eq + 1);
    if (dlen >= sizeof duration || (tilde && strlen(tilde + 1) >= sizeof jitter))
        return bad_delay(spec, "too long");
    memcpy(duration, eq + 1, dlen);
    if (tilde)
        strcpy(jitter, tilde + 1);
    struct rt_replay_delay d = {.event = (enum rt_delay_event)event};
    if (!rt_parse_duration_us(duration, &d.us) || (tilde && !rt_parse_duration_us(jitter, &d.jitter_us)))
        return bad_delay(spec, "bad duration");
    for (uint32_t i = 0; i < config->delay_count; i++)
        if (config->delays[i].event == d.event)
            return rt_errorf(RT_ERR_USAGE, "--delay: %s is given twice", event_names[event]);
    config->delays[config->delay_count++] = d;
    return rt_ok_status();
}

uint64_t rt_replay_random_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    return (x % 1000000000u) + 1; /* short enough to type back as --seed */
}

/* --- jitter: splitmix64, chosen for being tiny and well distributed ------- */

void rt_jitter_init(struct rt_jitter *j, uint64_t seed) { j->state = seed; }

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t rt_jitter_next(struct rt_jitter *j, const struct rt_replay_delay *d)
{
    if (!d->jitter_us)
        return d->us;
    uint64_t span = 2 * d->jitter_us + 1;
    uint64_t offset = splitmix64(&j->state) % span; /* bias below 1e-12 for spans under 2 minutes */
    int64_t value = (int64_t)d->us - (int64_t)d->jitter_us + (int64_t)offset;
    return value > 0 ? (uint64_t)value : 0;
}

/* --- the one-line description ----------------------------------------------- */

static void format_duration(char *buf, size_t size, uint64_t us)
{
    if (us && us % 1000000 == 0)
        snprintf(buf, size, "%" PRIu64 "s", us / 1000000);
    else if (us && us % 1000 == 0)
        snprintf(buf, size, "%" PRIu64 "ms", us / 1000);
    else
        snprintf(buf, size, "%" PRIu64 "us", us);
}

void rt_replay_delay_text(const struct rt_replay_delay *d, char *buf, size_t size)
{
    char dur[32], jit[32];
    format_duration(dur, sizeof dur, d->us);
    format_duration(jit, sizeof jit, d->jitter_us);
    if (d->jitter_us)
        snprintf(buf, size, "%s=%s~%s", event_names[d->event], dur, jit);
    else
        snprintf(buf, size, "%s=%s", event_names[d->event], dur);
}

static void put(char *buf, size_t size, size_t *used, const char *text)
{
    int n = snprintf(buf + *used, size - *used, "%s", text);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

void rt_replay_config_describe(const struct rt_replay_config *c, char *buf, size_t size)
{
    static const char *const validate[] = {"off", "on", "sync"};
    size_t used = 0;
    buf[0] = '\0';
    put(buf, size, &used, "workarounds");
    int n = 0;
    for (int i = 0; i < RT_WA_COUNT; i++)
        if (c->workarounds[i]) {
            put(buf, size, &used, n++ ? ", " : " ");
            put(buf, size, &used, rt_workaround_info((enum rt_workaround)i)->name);
        }
    if (!n)
        put(buf, size, &used, " none");
    for (uint32_t i = 0; i < c->set_count; i++) {
        put(buf, size, &used, i ? ", " : " (sets ");
        put(buf, size, &used, c->sets[i]);
    }
    put(buf, size, &used, c->set_count ? "); delays" : "; delays");
    for (uint32_t i = 0; i < c->delay_count; i++) {
        char text[96];
        rt_replay_delay_text(&c->delays[i], text, sizeof text);
        put(buf, size, &used, i ? ", " : " ");
        put(buf, size, &used, text);
    }
    char tail[600];
    snprintf(tail, sizeof tail, "%s; seed %" PRIu64 "; pipeline cache %s; validation %s",
             c->delay_count ? "" : " none", c->seed, c->pipeline_cache ? c->pipeline_cache : "none",
             validate[c->validate]);
    put(buf, size, &used, tail);
    if (c->skip_draws.frame) {
        snprintf(tail, sizeof tail, "; skip draws %" PRIu64 ":%" PRIu32 "-%" PRIu32, c->skip_draws.frame,
                 c->skip_draws.first, c->skip_draws.last);
        put(buf, size, &used, tail);
    }
}

/* --- applying CPU-side delays ----------------------------------------------- */

static void sleep_us(uint64_t us)
{
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* The command table's events are replay's, value for value: a command's
 * event is gen/command_flags.py's to decide, never a list of names here. */
_Static_assert((int)RT_DELAY_CREATE_PIPELINE == (int)RT_VK_EVENT_CREATE_PIPELINE &&
               (int)RT_DELAY_CREATE_SHADER == (int)RT_VK_EVENT_CREATE_SHADER &&
               (int)RT_DELAY_SUBMIT == (int)RT_VK_EVENT_SUBMIT && (int)RT_DELAY_PRESENT == (int)RT_VK_EVENT_PRESENT &&
               (int)RT_DELAY_ACQUIRE == (int)RT_VK_EVENT_ACQUIRE && (int)RT_DELAY_MAP == (int)RT_VK_EVENT_MAP &&
               (int)RT_DELAY_WAIT == (int)RT_VK_EVENT_WAIT && (int)RT_DELAY_GPU == (int)RT_VK_EVENT_COUNT,
               "replay/config.h's delay events follow gen/vkcodec_desc.h's enum rt_vk_cmd_event");

/* The event a command belongs to, or RT_DELAY_EVENT_COUNT. */
static enum rt_delay_event event_of(enum rt_vk_cmd cmd)
{
    int e = rt_vk_cmd_event(cmd);
    return e < 0 ? RT_DELAY_EVENT_COUNT : (enum rt_delay_event)e;
}

void replay_delay_before_call(struct replay *r, enum rt_vk_cmd cmd)
{
    struct replay_config_state *st = r->config;
    enum rt_delay_event e = event_of(cmd);
    if (!st || e == RT_DELAY_EVENT_COUNT || !st->delay[e])
        return;
    uint64_t us = rt_jitter_next(&st->jitter, st->delay[e]);
    sleep_us(us);
    r->result->outcome.delays[e].count++;
    r->result->outcome.delays[e].total_us += us;
}
