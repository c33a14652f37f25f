/*
 * common/include/file.h — reading a whole file into memory.
 *
 * Owns: one way to read a file that may be a pipe or grow while it is read
 * (no size taken from stat), with one error wording.
 * Must not touch: anything but libc.
 */
#ifndef RT_FILE_H
#define RT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/**
 * Reads all of PATH into *DATA_OUT (malloc'd, the caller frees it; not
 * NUL-terminated) and its length into *SIZE_OUT. RT_ERR_BAD_INPUT naming
 * PATH when it cannot be opened or read, RT_ERR_INTERNAL when memory runs
 * out; nothing is allocated then.
 */
RT_MUST_CHECK rt_status rt_file_read(const char *path, uint8_t **data_out, size_t *size_out);

#endif
