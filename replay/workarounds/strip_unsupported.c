/* replay/workarounds/strip_unsupported.c — strip-unsupported. Traces of GL programs running through
 * zink on lavapipe enable extensions and features other GPUs lack, whether or
 * not the program ever uses them. With this workaround such an extension or
 * feature is left out of device creation, and every later call is checked:
 * one that uses what was left out (a command of the extension, a structure
 * of it anywhere in the call's arguments, a shader declaring its SPIR-V
 * extension or the capability of a stripped feature) stops the replay with
 * exit 4 naming it. Never a silent misrender. Device creation asks it
 * (replay_strip_extension, replay_strip_feature: instance.c, features.c), and
 * configure.c unlinks the stripped extensions' structures from the device's
 * chain before any workaround adds to it (replay_strip_device_chain). */
#include <inttypes.h>
#include <string.h>

#include "replay_extensions.h"
#include "workaround.h"

#define MAX_DEPTH 8
#define ID RT_WA_STRIP_UNSUPPORTED

struct counters {
    uint64_t extensions_stripped, features_stripped, structures_removed;
};
REPLAY_WA_COUNTERS(struct counters, ID)

bool replay_strip_extension(struct replay *r, const char *name)
{
    struct replay_config_state *st = r->config;
    if (!replay_workaround(r, ID) || st->stripped_extension_count == REPLAY_MAX_STRIPPED)
        return false;
    snprintf(st->stripped_extensions[st->stripped_extension_count++], VK_MAX_EXTENSION_NAME_SIZE, "%s", name);
    counters(r)->extensions_stripped++;
    replay_wa_add_name(r, ID, name, false); /* listed as often as stripped */
    return true;
}

bool replay_strip_feature(struct replay *r, const char *struct_name, const char *member, VkBool32 *value)
{
    struct replay_config_state *st = r->config;
    if (!replay_workaround(r, ID) || st->stripped_feature_count == REPLAY_MAX_STRIPPED)
        return false;
    *value = VK_FALSE;
    snprintf(st->stripped_features[st->stripped_feature_count++], sizeof st->stripped_features[0], "%s", member);
    counters(r)->features_stripped++;
    char name[256];
    snprintf(name, sizeof name, "%s (%s)", member, struct_name);
    replay_wa_add_name(r, ID, name, false); /* listed as often as stripped */
    return true;
}

static bool stripped_extension(const struct replay_config_state *st, const char *name)
{
    for (uint32_t i = 0; i < st->stripped_extension_count; i++)
        if (!strcmp(st->stripped_extensions[i], name))
            return true;
    return false;
}

static bool stripped_feature(const struct replay_config_state *st, const char *name)
{
    for (uint32_t i = 0; i < st->stripped_feature_count; i++)
        if (!strcmp(st->stripped_features[i], name))
            return true;
    return false;
}

/* The extension a structure belongs to, or NULL for core ones. */
static const char *extension_of_stype(VkStructureType type)
{
    for (unsigned i = 0; i < replay_stype_extension_count; i++)
        if (replay_stype_extensions[i].stype == type)
            return replay_stype_extensions[i].extension;
    return NULL;
}

/* Unlinks the stripped extensions' structures from the chain at LINK; returns how many. */
static uint64_t unlink_stripped(struct replay *r, const VkBaseInStructure **link)
{
    uint64_t removed = 0;
    for (int n = 0; *link && n < 64; n++) { /* decoded nodes live in the arena: relinking is safe */
        const char *ext = extension_of_stype((*link)->sType);
        if (ext && stripped_extension(r->config, ext)) {
            *link = (*link)->pNext;
            removed++;
        } else
            link = (const VkBaseInStructure **)&(*link)->pNext;
    }
    return removed;
}

void replay_strip_device_chain(struct replay *r, VkDeviceCreateInfo *info)
{
    if (!r->config || !r->config->stripped_extension_count)
        return;
    counters(r)->structures_removed += unlink_stripped(r, (const VkBaseInStructure **)&info->pNext);
}

/* A physical-device query only asks what the device offers: zink's second
 * screen asks vkGetPhysicalDeviceFeatures2 about every extension it knows, the
 * stripped ones too. Their structures are left out of the query's chains
 * (the device could not fill them; nothing is rendered from the answer)
 * instead of stopping the replay. */
static void drop_from_query(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    const struct rt_vk_struct_desc *sd = rt_vk_commands[cmd].args;
    for (uint32_t i = 0; sd && sd->members && i < sd->nmembers; i++) {
        const struct rt_vk_member *m = &sd->members[i];
        if (m->kind != RT_VK_KIND_STRUCT || m->depth != 1 || m->aux < 0 || !rt_vk_structs[m->aux].members)
            continue;
        const struct rt_vk_struct_desc *sub = &rt_vk_structs[m->aux];
        uint8_t *items = *(uint8_t **)((uint8_t *)args + m->offset);
        uint64_t count = m->len ? m->len(args) : 1;
        for (uint64_t k = 0; items && k < count && k < 4096; k++)
            for (uint32_t j = 0; j < sub->nmembers; j++)
                if (sub->members[j].kind == RT_VK_KIND_PNEXT)
                    counters(r)->structures_removed += unlink_stripped(
                        r, (const VkBaseInStructure **)(items + k * m->elem_size + sub->members[j].offset));
    }
}

static rt_status uses(struct replay *r, enum rt_vk_cmd cmd, const char *what, const char *name)
{
    return rt_errorf(RT_ERR_CANNOT_REPLAY, "call %" PRIu64 ": %s uses %s %s, which strip-unsupported left out "
                     "because %s lacks it", r->call_seq, rt_vk_cmd_name(cmd), what, name, r->gpu_properties.deviceName);
}

/* --- shaders: SPIR-V extensions and capabilities ----------------------------- */

/* SPIR-V capabilities (SPIR-V 1.6 §3.31) that need a device feature. */
static const struct {
    uint32_t capability;
    const char *feature;
} capability_features[] = {
    {2, "geometryShader"}, {3, "tessellationShader"}, {9, "shaderFloat16"}, {10, "shaderFloat64"},
    {11, "shaderInt64"}, {22, "shaderInt16"}, {23, "shaderTessellationAndGeometryPointSize"},
    {24, "shaderTessellationAndGeometryPointSize"}, {25, "shaderImageGatherExtended"},
    {27, "shaderStorageImageMultisample"}, {32, "shaderClipDistance"}, {33, "shaderCullDistance"},
    {34, "imageCubeArray"}, {35, "sampleRateShading"}, {39, "shaderInt8"}, {41, "shaderResourceResidency"},
    {42, "shaderResourceMinLod"}, {45, "imageCubeArray"}, {49, "shaderStorageImageExtendedFormats"},
    {55, "shaderStorageImageReadWithoutFormat"}, {56, "shaderStorageImageWriteWithoutFormat"},
    {57, "multiViewport"}, {4427, "shaderDrawParameters"},
};

static rt_status check_spirv(struct replay *r, enum rt_vk_cmd cmd, const uint32_t *code, size_t bytes)
{
    const struct replay_config_state *st = r->config;
    size_t n = bytes / 4;
    for (size_t i = 5; code && i < n;) { /* after the 5-word header */
        uint32_t words = code[i] >> 16, op = code[i] & 0xffff;
        if (words == 0 || words > n - i)
            break; /* malformed: the driver will say so */
        if (op == 10 /* OpExtension */ && words > 1) {
            char name[VK_MAX_EXTENSION_NAME_SIZE];
            snprintf(name, sizeof name, "VK_%.*s", (int)((words - 1) * 4 - 4), (const char *)&code[i + 1] + 4);
            if (!strncmp((const char *)&code[i + 1], "SPV_", 4) && stripped_extension(st, name))
                return uses(r, cmd, "a shader declaring extension", name);
        }
        for (size_t k = 0; op == 17 /* OpCapability */ && words == 2 &&
                           k < sizeof capability_features / sizeof capability_features[0]; k++)
            if (capability_features[k].capability == code[i + 1] && stripped_feature(st, capability_features[k].feature))
                return uses(r, cmd, "a shader needing feature", capability_features[k].feature);
        if (op == 54 /* OpFunction: the declarations are over */)
            break;
        i += words;
    }
    return rt_ok_status();
}

/* --- structures of a stripped extension, anywhere in the arguments ----------- */

static rt_status walk_struct(struct replay *r, enum rt_vk_cmd cmd, const struct rt_vk_struct_desc *sd,
                             const uint8_t *p, int depth);

static rt_status check_node(struct replay *r, enum rt_vk_cmd cmd, const VkBaseInStructure *node, int depth)
{
    const char *ext = extension_of_stype(node->sType);
    if (ext && stripped_extension(r->config, ext)) {
        enum rt_vk_struct_type t;
        const char *name = rt_vk_struct_from_stype((uint32_t)node->sType, &t) ? rt_vk_structs[t].name : "a structure";
        char what[160];
        snprintf(what, sizeof what, "%s of", name);
        return uses(r, cmd, what, ext);
    }
    if (node->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
        const VkShaderModuleCreateInfo *m = (const VkShaderModuleCreateInfo *)node;
        RT_TRY(check_spirv(r, cmd, m->pCode, m->codeSize));
    }
    enum rt_vk_struct_type t;
    if (rt_vk_struct_from_stype((uint32_t)node->sType, &t) && rt_vk_structs[t].members)
        return walk_struct(r, cmd, &rt_vk_structs[t], (const uint8_t *)node, depth + 1);
    return rt_ok_status();
}

static rt_status walk_member(struct replay *r, enum rt_vk_cmd cmd, const struct rt_vk_member *m, const uint8_t *parent,
                             int depth)
{
    const uint8_t *at = parent + m->offset;
    if (m->kind == RT_VK_KIND_PNEXT) {
        const VkBaseInStructure *node = *(const VkBaseInStructure *const *)at;
        for (int n = 0; node && n < 64; n++, node = node->pNext)
            RT_TRY(check_node(r, cmd, node, depth));
        return rt_ok_status();
    }
    if (m->kind != RT_VK_KIND_STRUCT || m->depth > 1 || m->aux < 0)
        return rt_ok_status();
    const struct rt_vk_struct_desc *sub = &rt_vk_structs[m->aux];
    if (!sub->members)
        return rt_ok_status();
    uint64_t count = m->depth == 0 ? m->count : m->len ? m->len(parent) : 1;
    const uint8_t *items = m->depth == 0 ? at : *(const uint8_t *const *)at;
    for (uint64_t i = 0; items && i < count && i < 4096; i++)
        RT_TRY(walk_struct(r, cmd, sub, items + i * m->elem_size, depth + 1));
    return rt_ok_status();
}

static rt_status walk_struct(struct replay *r, enum rt_vk_cmd cmd, const struct rt_vk_struct_desc *sd,
                             const uint8_t *p, int depth)
{
    if (depth > MAX_DEPTH || sd->is_union)
        return rt_ok_status();
    for (uint32_t i = 0; i < sd->nmembers; i++)
        RT_TRY(walk_member(r, cmd, &sd->members[i], p, depth));
    return rt_ok_status();
}

rt_status replay_strip_check_call(struct replay *r, enum rt_vk_cmd cmd, const void *args)
{
    if (!r->config->stripped_extension_count && !r->config->stripped_feature_count)
        return rt_ok_status();
    const char *ext = replay_cmd_extension[cmd];
    if (ext && stripped_extension(r->config, ext))
        return uses(r, cmd, "extension", ext);
    bool creates = rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_CREATES;
    if (creates && rt_vk_commands[cmd].object_type == VK_OBJECT_TYPE_SHADER_MODULE) {
        /* vkCreateShaderModule is the one command that makes shader modules */
        const VkShaderModuleCreateInfo *info = ((const struct rt_vk_args_vkCreateShaderModule *)args)->pCreateInfo;
        RT_TRY(check_spirv(r, cmd, info->pCode, info->codeSize));
    }
    if ((creates && rt_vk_commands[cmd].object_type == VK_OBJECT_TYPE_DEVICE) || !rt_vk_commands[cmd].args || !rt_vk_commands[cmd].args->members)
        return rt_ok_status(); /* device creation is where they were stripped */
    return walk_struct(r, cmd, rt_vk_commands[cmd].args, args, 0);
}

static rt_status before_call(struct replay *r, enum rt_vk_cmd cmd, void *args)
{
    if (r->config->stripped_extension_count && (rt_vk_cmd_flags(cmd) & RT_VK_CMD_FLAG_QUERY) &&
        rt_vk_commands[cmd].level == RT_VK_LEVEL_PHYSICAL_DEVICE)
        drop_from_query(r, cmd, args);
    return replay_strip_check_call(r, cmd, args);
}

static const struct replay_wa_counter counter_list[] = {REPLAY_WA_COUNTER(struct counters, extensions_stripped),
                                                        REPLAY_WA_COUNTER(struct counters, features_stripped),
                                                        REPLAY_WA_COUNTER(struct counters, structures_removed)};

const struct replay_workaround replay_wa_strip_unsupported = {
    .info = {"strip-unsupported", "leave out extensions and features the replay device lacks instead of failing",
             "device creation: an extension or feature the trace enables that the device lacks is left\n"
             "out (and listed). A call that then uses it (a command of the extension, a structure of it\n"
             "in a pNext chain, a shader declaring the SPIR-V extension or capability) stops the replay\n"
             "with exit 4 naming it: never a silent misrender. A physical-device query that chains a\n"
             "structure of a stripped extension only asks about it: the structure is left out (counted in structures_removed)."},
    .id = ID,
    REPLAY_WA_COUNTER_FIELDS(counter_list, struct counters),
    .names_key = "stripped",
    .before_call = before_call,
};
