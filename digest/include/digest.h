/*
 * digest/ — the SHA-256 of a file, the one hash retrace shares with the
 * world: manifests name downloaded traces by it, and a trimmed or imported
 * trace's state snapshot records its source's. Nettle computes it (SHA-NI
 * where the CPU has it). Owns nothing else; xxHash checksums inside a trace
 * are trace/'s.
 */
#ifndef RT_DIGEST_H
#define RT_DIGEST_H

#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define RT_SHA256_SIZE 32
#define RT_SHA256_HEX_SIZE 65 /* 64 lower-case hex digits and the NUL */

/* The SHA-256 of what is left of fp from its current position to its end. */
RT_MUST_CHECK rt_status rt_sha256_stream(FILE *fp, const char *name, uint8_t out[RT_SHA256_SIZE]);

/* The SHA-256 of the file at path. */
RT_MUST_CHECK rt_status rt_sha256_file(const char *path, uint8_t out[RT_SHA256_SIZE]);

/* The digest as 64 lower-case hex digits, as manifests write it. */
void rt_sha256_hex(const uint8_t digest[RT_SHA256_SIZE], char hex_out[RT_SHA256_HEX_SIZE]);

/* The SHA-256 of the file at path, as hex digits (a manifest's sha256, a cache's file name). */
RT_MUST_CHECK rt_status rt_sha256_file_hex(const char *path, char hex_out[RT_SHA256_HEX_SIZE]);

#endif
