/*
 * common/include/process.h — is a process recorded earlier still the same running
 * process? A run in the store names its runner by host, pid and the
 * process's start; a runner killed with SIGKILL never finishes its run, and
 * whoever sees that pid gone (or reused) on the same host may call the run
 * aborted (runner/stale.c when `retrace run` starts, server/ when serving).
 * Linux /proc; elsewhere only kill(pid, 0) decides.
 */
#ifndef RT_PROCESS_H
#define RT_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** PID's start as "BOOT_ID:TICKS" (boot id, start time in clock ticks); false when unreadable. */
bool rt_process_identity(int64_t pid, char *buf, size_t size);

/**
 * Whether PID runs (not a zombie) and, when START is given and non-empty,
 * is the process whose rt_process_identity was START (a reused pid is not).
 */
bool rt_process_alive(int64_t pid, const char *start);

#endif
