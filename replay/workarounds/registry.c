/* replay/workarounds/registry.c — every workaround's descriptor, by
 * enum rt_workaround (config.h). A new workaround is a file beside this one,
 * its enum entry, and one line here; README's table and the report follow
 * from the descriptor (tests/unit/test_replay_config.c checks both). */
#include <string.h>

#include "workaround.h"

extern const struct replay_workaround replay_wa_robust_buffer_access, replay_wa_readback_barrier,
    replay_wa_serialize_submits, replay_wa_zero_init, replay_wa_no_pipeline_cache, replay_wa_strip_unsupported,
    replay_wa_serialize_frames, replay_wa_no_robustness, replay_wa_no_anisotropy,
    replay_wa_test_flip_blend, replay_wa_test_dirty_memory, replay_wa_test_unchecked_reads, replay_wa_test_late_submits;

const struct replay_workaround *const replay_workarounds[RT_WA_COUNT] = {
    [RT_WA_ROBUST_BUFFER_ACCESS] = &replay_wa_robust_buffer_access,
    [RT_WA_READBACK_BARRIER] = &replay_wa_readback_barrier,
    [RT_WA_SERIALIZE_SUBMITS] = &replay_wa_serialize_submits,
    [RT_WA_ZERO_INIT] = &replay_wa_zero_init,
    [RT_WA_NO_PIPELINE_CACHE] = &replay_wa_no_pipeline_cache,
    [RT_WA_STRIP_UNSUPPORTED] = &replay_wa_strip_unsupported,
    [RT_WA_SERIALIZE_FRAMES] = &replay_wa_serialize_frames,
    [RT_WA_NO_ROBUSTNESS] = &replay_wa_no_robustness,
    [RT_WA_NO_ANISOTROPY] = &replay_wa_no_anisotropy,
    [RT_WA_TEST_FLIP_BLEND] = &replay_wa_test_flip_blend,
    [RT_WA_TEST_DIRTY_MEMORY] = &replay_wa_test_dirty_memory,
    [RT_WA_TEST_UNCHECKED_READS] = &replay_wa_test_unchecked_reads,
    [RT_WA_TEST_LATE_SUBMITS] = &replay_wa_test_late_submits,
};

bool replay_wa_add_name(struct replay *r, enum rt_workaround w, const char *name, bool once)
{
    char *names = r->result->outcome.acted_names[w];
    size_t size = sizeof r->result->outcome.acted_names[w], used = strlen(names);
    for (const char *p = names; once && (p = strstr(p, name)); p++) /* whole entries only */
        if ((p == names || p[-1] == ',') && (p[strlen(name)] == ',' || !p[strlen(name)]))
            return false;
    int n = snprintf(names + used, size - used, "%s%s", used ? "," : "", name);
    if (n < 0 || (size_t)n >= size - used) {
        names[used] = '\0';
        return false;
    }
    return true;
}
