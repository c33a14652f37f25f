/*
 * runner/manifest_yaml.h — the YAML value readers shared by manifest.c and
 * manifest_yaml.c (internal to runner/). Each returns RT_ERR_BAD_INPUT
 * "FILE:LINE: what is wrong" for a value it cannot take; strings and arrays
 * go into the manifest's arena.
 */
#ifndef RT_RUNNER_MANIFEST_YAML_H
#define RT_RUNNER_MANIFEST_YAML_H

#include <yaml.h>

#include "runner.h"

struct mf_ctx {
    const char *path;
    yaml_document_t doc;
    struct rt_manifest *m;
    const char *dir; /* the manifest's folder, for relative paths */
};

struct mf_slot {
    const char *key;
    yaml_node_t *node;
};

int mf_line_of(const yaml_node_t *node);
rt_status mf_failf(struct mf_ctx *c, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
yaml_node_t *mf_node_at(struct mf_ctx *c, int index);
/** The text of a scalar node; NULL for anything else. */
const char *mf_scalar(const yaml_node_t *node);
char *mf_dup_str(struct mf_ctx *c, const char *s);
/** Fills SLOTS (key names, nodes NULL) from mapping NODE; unknown and repeated keys are errors. */
rt_status mf_collect(struct mf_ctx *c, yaml_node_t *node, const char *what, struct mf_slot *slots, size_t n);
rt_status mf_get_string(struct mf_ctx *c, yaml_node_t *node, const char *what, const char **out);
/** Letters, digits and . _ + -, at most 128: names that are safe in paths and URLs. */
bool mf_name_ok(const char *s);
rt_status mf_get_name(struct mf_ctx *c, yaml_node_t *node, const char *what, const char **out);
/** A number from 0 to 1. */
rt_status mf_get_double(struct mf_ctx *c, yaml_node_t *node, const char *what, double *out);
bool mf_parse_uint(const char *s, uint64_t max, uint64_t *out);
/** Seconds: "90", "90s" or "5m"; 1 s to a day. */
rt_status mf_get_timeout(struct mf_ctx *c, yaml_node_t *node, uint32_t *out);
/** A scalar or a sequence of scalars, as an array of strings. */
rt_status mf_get_list(struct mf_ctx *c, yaml_node_t *node, const char *what, const char ***out, size_t *count);
/** Frames: 5, "1,10,20-22" or [1, 10]; a closed list of at most 1000. */
rt_status mf_get_frames(struct mf_ctx *c, yaml_node_t *node, struct rt_manifest_trace *t);
/** "EVENT=DURATION[~JITTER]": the shape only; `retrace replay --delay` judges the rest. */
rt_status mf_check_skip_draws(struct mf_ctx *c, yaml_node_t *node, const char **out) RT_MUST_CHECK;
rt_status mf_check_delay(struct mf_ctx *c, yaml_node_t *node, const char *spec);

#endif
