/* trim/sha256.c — the SHA-256 of the source trace, for SNAPSHOT_BEGIN (libcrypto). */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "trim_internal.h"

rt_status trim_sha256_file(const char *path, uint8_t out[32])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    static unsigned char buf[1 << 20];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(md, buf, n);
    unsigned len = 0;
    ok = ok && !ferror(f) && EVP_DigestFinal_ex(md, out, &len) && len == 32;
    EVP_MD_CTX_free(md);
    fclose(f);
    return ok ? rt_ok_status() : rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot read it to hash it", path);
}
