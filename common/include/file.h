/*
 * common/include/file.h — reading a whole file into memory, making a folder
 * with its parents, and checking an output path before the work.
 *
 * Owns: one way to read a file that may be a pipe or grow while it is read
 * (no size taken from stat), with one error wording; one `mkdir -p`; one
 * check of an output file's folder; one open of an input that is not a folder.
 * Must not touch: anything but libc.
 */
#ifndef RT_FILE_H
#define RT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
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

/**
 * Checks, before any work, that the output file PATH can be written: its
 * folder exists, is a folder and takes new files, and PATH is not a folder
 * (an existing file is fine: it will be replaced). Leaves nothing behind.
 * RT_ERR_USAGE worded "FLAG: cannot write PATH: REASON", so every command
 * refuses an unwritable output the same way (exit 2), instead of finding out
 * after the replay or comparison whose result it then loses.
 */
RT_MUST_CHECK rt_status rt_output_file_check(const char *flag, const char *path);

/**
 * Opens PATH for reading into *OUT, refusing a folder: Linux opens one, and
 * the read that fails later made it "not a PNG file" or a parser's "input
 * error". RT_ERR_BAD_INPUT worded "PATH: cannot open[ WHAT]: REASON" (WHAT
 * may be NULL); *OUT is NULL then.
 */
RT_MUST_CHECK rt_status rt_file_open_read(const char *path, const char *what, FILE **out);

/**
 * True when paths X and Y name one file: the same string, or the same device
 * and inode (a link, "./a.png"). For refusing an output that would overwrite
 * an input.
 */
bool rt_same_file(const char *x, const char *y);

#endif
