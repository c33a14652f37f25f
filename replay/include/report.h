/*
 * replay/include/report.h — `retrace replay --report FILE.json`: what one replay did,
 * in the format of docs/FORMATS.md section 1 (the runner stores it with every
 * result; the dashboard shows it).
 */
#ifndef RT_REPLAY_REPORT_H
#define RT_REPLAY_REPORT_H

#include "replay.h"

/**
 * Writes the report of a finished replay (also a failed one) to PATH, through
 * PATH.tmp and a rename. EXIT_CODE and MESSAGE are what the command exits with.
 */
rt_status rt_replay_report_write(const char *path, const struct rt_replay_options *options,
                                 const struct rt_replay_result *result, int exit_code,
                                 const char *message) RT_MUST_CHECK;

#endif
