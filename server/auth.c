/*
 * server/auth.c — the bearer token that every write needs. The token is read
 * once at start; a request's token is compared in time that does not depend
 * on how many of its bytes match.
 */
#include "server_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

rt_status rt_auth_load(struct rt_server *server, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "token file %s: %s", path, strerror(errno));
    size_t n = fread(server->token, 1, sizeof server->token, f);
    bool too_long = n == sizeof server->token;
    fclose(f);
    while (n > 0 && strchr(" \t\r\n", server->token[n - 1]))
        n--;
    if (too_long)
        return rt_errorf(RT_ERR_USAGE, "token file %s: longer than %d bytes", path,
                         RT_SERVER_TOKEN_MAX - 1);
    if (n == 0)
        return rt_errorf(RT_ERR_USAGE, "token file %s is empty", path);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)server->token[i] <= ' ' || server->token[i] == 127)
            return rt_errorf(RT_ERR_USAGE, "token file %s: the token has a space or a "
                                           "control character", path);
    server->token[n] = '\0';
    server->token_len = n;
    return rt_ok_status();
}

bool rt_auth_equal(const char *given, size_t given_len, const char *expected,
                   size_t expected_len)
{
    /* Walk the expected token whole whatever was given, folding every
     * difference (and a length mismatch) into one accumulator. */
    volatile unsigned char diff = given_len != expected_len;
    for (size_t i = 0; i < expected_len; i++) {
        unsigned char g = i < given_len ? (unsigned char)given[i] : 0;
        diff |= g ^ (unsigned char)expected[i];
    }
    return diff == 0;
}

bool rt_auth_check(struct rt_request *req)
{
    struct rt_server *server = req->server;
    if (server->token_len == 0)
        return false;
    const char *header = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_AUTHORIZATION);
    if (!header || strncasecmp(header, "Bearer ", 7) != 0)
        return false;
    const char *given = header + 7;
    return rt_auth_equal(given, strlen(given), server->token, server->token_len);
}
