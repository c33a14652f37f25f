/* tests/integration/trim_check_fails.c TRACE DIR — `retrace trim --check`
 * can fail: a trim of TRACE's frames 3-4 checks clean against frames 3-4
 * and fails (RT_ERR_FAILED, naming the frame) against frames 4-5, which the
 * program animates differently. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trim.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: trim_check_fails TRACE DIR\n");
        return 2;
    }
    char out[4096];
    snprintf(out, sizeof out, "%s/trim_3_4.rtrace", argv[2]);
    struct rt_trim_options o = {.in = argv[1], .out = out, .first = 3, .last = 4};
    struct rt_trim_result r;
    rt_status s = rt_trim_run(&o, &r);
    if (!rt_ok(&s)) {
        fprintf(stderr, "FAIL: trim: %s\n", s.msg);
        return 1;
    }
    struct rt_trim_check_result c;
    s = rt_trim_check(&o, &c);
    if (!rt_ok(&s) || c.identical != 2) {
        fprintf(stderr, "FAIL: the trim does not check clean against its own frames: %s\n", s.msg);
        return 1;
    }
    o.first = 4, o.last = 5; /* what the file holds is frames 3-4 */
    s = rt_trim_check(&o, &c);
    unlink(out);
    if (s.code != RT_ERR_FAILED || c.first_different != 1 || !strstr(s.msg, "pixels differ")) {
        fprintf(stderr, "FAIL: expected the check against frames 4-5 to fail at frame 1, got %d: %s\n", s.code,
                s.msg);
        return 1;
    }
    printf("ok: %s\n", s.msg);
    return 0;
}
