/*
 * runner/fetch.c — traces kept in an object store: fetched once with
 * libcurl into the manifest's cache folder, named by their SHA-256, verified
 * on every use (a cache can be damaged too).
 */
#include <curl/curl.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

rt_status rt_sha256_file(const char *path, char hex_out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", path, strerror(errno));
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(md);
        fclose(f);
        return rt_errorf(RT_ERR_INTERNAL, "cannot start SHA-256");
    }
    unsigned char buf[65536], digest[32];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        EVP_DigestUpdate(md, buf, n);
    bool bad = ferror(f);
    fclose(f);
    unsigned len = 0;
    EVP_DigestFinal_ex(md, digest, &len);
    EVP_MD_CTX_free(md);
    if (bad)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: read error", path);
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex_out + 2 * i, 3, "%02x", digest[i]);
    return rt_ok_status();
}

static rt_status make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return rt_errorf(RT_ERR_INTERNAL, "cannot create %s: %s", buf, strerror(errno));
    return rt_ok_status();
}

static rt_status download(const char *url, const char *part)
{
    FILE *f = fopen(part, "wb");
    if (!f)
        return rt_errorf(RT_ERR_INTERNAL, "%s: %s", part, strerror(errno));
    CURL *curl = curl_easy_init();
    if (!curl) {
        fclose(f);
        return rt_errorf(RT_ERR_INTERNAL, "cannot start libcurl");
    }
    char err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L); /* a stalled server is an error, not a hang */
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    bool write_failed = fclose(f) != 0;
    if (rc != CURLE_OK)
        return rt_errorf(RT_ERR_CANNOT_REPLAY, "cannot download %s: %s", url, err[0] ? err : curl_easy_strerror(rc));
    if (write_failed)
        return rt_errorf(RT_ERR_INTERNAL, "writing %s failed", part);
    return rt_ok_status();
}

rt_status rt_fetch_trace(const char *url, const char *sha256, const char *path)
{
    char got[65];
    if (access(path, F_OK) == 0) {
        rt_status cached = rt_sha256_file(path, got);
        if (rt_ok(&cached) && !strcmp(got, sha256))
            return rt_ok_status(); /* reused */
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    RT_TRY(make_dirs(dir));
    char part[4200];
    snprintf(part, sizeof part, "%s.part.%ld", path, (long)getpid());
    rt_status s = download(url, part);
    if (rt_ok(&s))
        s = rt_sha256_file(part, got);
    if (rt_ok(&s) && strcmp(got, sha256))
        s = rt_errorf(RT_ERR_BAD_INPUT, "sha256 mismatch for %s: the manifest says %s, the download is %s", url,
                      sha256, got);
    if (rt_ok(&s) && rename(part, path) != 0)
        s = rt_errorf(RT_ERR_INTERNAL, "cannot rename %s: %s", part, strerror(errno));
    if (!rt_ok(&s))
        unlink(part);
    return s;
}
