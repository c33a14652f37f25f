/* digest/sha256.c — SHA-256 of a file through Nettle (see digest.h). */
#include <errno.h>
#include <nettle/sha2.h>
#include <string.h>

#include "digest.h"

rt_status rt_sha256_stream(FILE *fp, const char *name, uint8_t out[RT_SHA256_SIZE])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        sha256_update(&ctx, n, buf);
    if (ferror(fp))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: read error while hashing it", name);
    sha256_digest(&ctx, RT_SHA256_SIZE, out);
    return rt_ok_status();
}

rt_status rt_sha256_file(const char *path, uint8_t out[RT_SHA256_SIZE])
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    rt_status s = rt_sha256_stream(fp, path, out);
    fclose(fp);
    return s;
}

void rt_sha256_hex(const uint8_t digest[RT_SHA256_SIZE], char hex_out[RT_SHA256_HEX_SIZE])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < RT_SHA256_SIZE; i++) {
        hex_out[2 * i] = digits[digest[i] >> 4];
        hex_out[2 * i + 1] = digits[digest[i] & 15];
    }
    hex_out[2 * RT_SHA256_SIZE] = '\0';
}

rt_status rt_sha256_file_hex(const char *path, char hex_out[RT_SHA256_HEX_SIZE])
{
    uint8_t digest[RT_SHA256_SIZE];
    RT_TRY(rt_sha256_file(path, digest));
    rt_sha256_hex(digest, hex_out);
    return rt_ok_status();
}
