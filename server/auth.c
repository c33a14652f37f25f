/*
 * server/auth.c — the bearer tokens that writes need, each with a name
 * (a person or a bot) that the store records as who approved, marked or set
 * an expectation. `--tokens FILE` holds one "NAME TOKEN" per line; a single
 * `--token-file` token is named "token". Tokens are read once at start; a
 * request's token is compared with every token in time that does not depend
 * on how many of its bytes match, nor on which token matched.
 */
#include "server_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MIN_TOKEN 16

static bool printable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 127)
            return false;
    return true;
}

static bool valid_name(const char *s, size_t n)
{
    if (n == 0 || n > RT_SERVER_TOKEN_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-", s[i]))
            return false;
    return true;
}

static rt_status add_token(struct rt_server *server, const char *path, int line, const char *name,
                           size_t name_len, const char *token, size_t len)
{
    if (server->token_count == RT_SERVER_TOKENS)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: more than %d tokens", path, RT_SERVER_TOKENS);
    if (!valid_name(name, name_len))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: a name is 1 to %d of A-Z a-z 0-9 . _ @ -", path,
                         line, RT_SERVER_TOKEN_NAME_MAX);
    if (len >= RT_SERVER_TOKEN_MAX || !printable(token, len))
        return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: the token has a space or a control character, or is "
                         "longer than %d bytes", path, line, RT_SERVER_TOKEN_MAX - 1);
    for (size_t i = 0; i < server->token_count; i++) {
        const struct rt_server_token *t = &server->tokens[i];
        if (strlen(t->name) == name_len && !memcmp(t->name, name, name_len))
            return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: the name %.*s is given twice", path, line,
                             (int)name_len, name);
        if (t->len == len && !memcmp(t->token, token, len))
            return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: that token is given twice", path, line);
    }
    struct rt_server_token *t = &server->tokens[server->token_count++];
    memcpy(t->name, name, name_len);
    t->name[name_len] = '\0';
    memcpy(t->token, token, len);
    t->token[len] = '\0';
    t->len = len;
    return rt_ok_status();
}

/* The single token of --token-file: the first line, trailing white space dropped. */
static rt_status load_single(struct rt_server *server, const char *path)
{
    char buf[RT_SERVER_TOKEN_MAX + 1];
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "token file %s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n == sizeof buf)
        return rt_errorf(RT_ERR_BAD_INPUT, "token file %s: longer than %d bytes", path,
                         RT_SERVER_TOKEN_MAX - 1);
    while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
        n--;
    if (n == 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "token file %s is empty", path);
    rt_status s = add_token(server, path, 1, "token", 5, buf, n);
    explicit_bzero(buf, sizeof buf);
    return s;
}

/* One "NAME TOKEN" line (blank and # lines skipped). */
static rt_status parse_line(struct rt_server *server, const char *path, int line, char *text)
{
    size_t n = strlen(text);
    while (n > 0 && strchr(" \t\r\n", text[n - 1]))
        text[--n] = '\0';
    char *p = text + strspn(text, " \t");
    if (!*p || *p == '#')
        return rt_ok_status();
    size_t name_len = strcspn(p, " \t");
    char *token = p + name_len + strspn(p + name_len, " \t");
    if (!*token)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: expected NAME TOKEN", path, line);
    size_t len = strlen(token);
    if (len < MIN_TOKEN)
        return rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: a token is at least %d bytes", path, line, MIN_TOKEN);
    return add_token(server, path, line, p, name_len, token, len);
}

static rt_status load_named(struct rt_server *server, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_errorf(RT_ERR_BAD_INPUT, "tokens file %s: %s", path, strerror(errno));
    char text[RT_SERVER_TOKEN_MAX + RT_SERVER_TOKEN_NAME_MAX + 8];
    rt_status s = rt_ok_status();
    size_t before = server->token_count;
    for (int line = 1; rt_ok(&s) && fgets(text, sizeof text, f); line++)
        s = strchr(text, '\n') || feof(f) ? parse_line(server, path, line, text)
                                          : rt_errorf(RT_ERR_BAD_INPUT, "%s:%d: line too long", path, line);
    fclose(f);
    explicit_bzero(text, sizeof text);
    if (rt_ok(&s) && server->token_count == before)
        s = rt_errorf(RT_ERR_BAD_INPUT, "tokens file %s holds no token", path);
    return s;
}

rt_status rt_auth_load(struct rt_server *server, const struct rt_server_options *options)
{
    if (options->token_file)
        RT_TRY(load_single(server, options->token_file));
    if (options->tokens_file)
        RT_TRY(load_named(server, options->tokens_file));
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

const char *rt_auth_check(struct rt_request *req)
{
    struct rt_server *server = req->server;
    if (server->token_count == 0)
        return NULL;
    const char *header = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_AUTHORIZATION);
    if (!header || strncasecmp(header, "Bearer ", 7) != 0)
        return NULL;
    const char *given = header + 7;
    size_t len = strlen(given);
    const char *name = NULL;
    for (size_t i = 0; i < server->token_count; i++) { /* every one, whichever matches */
        bool match = rt_auth_equal(given, len, server->tokens[i].token, server->tokens[i].len);
        name = match ? server->tokens[i].name : name;
    }
    return name;
}
