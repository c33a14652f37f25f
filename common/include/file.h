/*
 * common/include/file.h — reading a whole file into memory, and making a
 * folder with its parents.
 *
 * Owns: one way to read a file that may be a pipe or grow while it is read
 * (no size taken from stat), with one error wording; one `mkdir -p`.
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

/**
 * Makes the folder PATH and every missing parent (mode 0777 less the umask);
 * folders that exist already are fine. RT_ERR_BAD_INPUT naming the first
 * folder that cannot be made, with the system's reason.
 */
RT_MUST_CHECK rt_status rt_make_dirs(const char *path);

#endif
