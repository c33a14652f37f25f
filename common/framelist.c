/* common/framelist.c — frame-number lists (see framelist.h). */
#include "framelist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool parse_number(const char *s, const char **end, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno || v == 0)
        return false; /* frames are numbered from 1 */
    *out = v;
    *end = e;
    return true;
}

static int by_first(const void *a, const void *b)
{
    const struct rt_frame_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static rt_status parse_item(const char *item, struct rt_frame_range *out)
{
    const char *p = item;
    if (!parse_number(p, &p, &out->first))
        return rt_errorf(RT_ERR_USAGE, "bad frame number '%s' (frames are numbered from 1)", item);
    out->last = out->first;
    if (*p == '-') {
        p++;
        if (*p == '\0')
            out->last = UINT64_MAX;
        else if (!parse_number(p, &p, &out->last) || out->last < out->first)
            return rt_errorf(RT_ERR_USAGE, "bad frame range '%s'", item);
    }
    if (*p != '\0')
        return rt_errorf(RT_ERR_USAGE, "bad frame list item '%s'", item);
    return rt_ok_status();
}

rt_status rt_frame_list_parse(const char *text, struct rt_frame_list *out)
{
    *out = (struct rt_frame_list){0};
    if (!strcmp(text, "all")) {
        out->ranges = malloc(sizeof *out->ranges);
        if (!out->ranges)
            return rt_errorf(RT_ERR_INTERNAL, "out of memory");
        out->ranges[0] = (struct rt_frame_range){1, UINT64_MAX};
        out->count = 1;
        return rt_ok_status();
    }
    char *copy = strdup(text);
    size_t max_items = 1;
    for (const char *c = text; *c; c++)
        max_items += *c == ',';
    out->ranges = calloc(max_items, sizeof *out->ranges);
    if (!copy || !out->ranges) {
        free(copy);
        rt_frame_list_finish(out);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    rt_status s = rt_ok_status();
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rt_ok(&s); item = strtok_r(NULL, ",", &save))
        s = parse_item(item, &out->ranges[out->count++]);
    if (rt_ok(&s) && out->count == 0)
        s = rt_errorf(RT_ERR_USAGE, "empty frame list");
    free(copy);
    if (!rt_ok(&s)) {
        rt_frame_list_finish(out);
        return s;
    }
    qsort(out->ranges, out->count, sizeof *out->ranges, by_first);
    return s;
}

void rt_frame_list_finish(struct rt_frame_list *list)
{
    free(list->ranges);
    *list = (struct rt_frame_list){0};
}

bool rt_frame_list_contains(const struct rt_frame_list *list, uint64_t frame)
{
    for (size_t i = 0; i < list->count; i++)
        if (frame >= list->ranges[i].first && frame <= list->ranges[i].last)
            return true;
    return false;
}

uint64_t rt_frame_list_last(const struct rt_frame_list *list)
{
    uint64_t last = 0;
    for (size_t i = 0; i < list->count; i++)
        if (list->ranges[i].last > last)
            last = list->ranges[i].last;
    return last;
}
