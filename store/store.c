/*
 * store/store.c — opening the golden store, the per-connection statement
 * cache, error mapping and transactions (see store.h).
 */
#include "store_internal.h"

#include <pthread.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
#include <xxhash.h>

#define DEFAULT_BUSY_TIMEOUT_MS 10000
#define BUSY_RETRIES 3

rt_status rt_store_rc_status(int rc, const char *what, const char *detail)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: database is locked by another process", what);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: database is corrupt or not a database (%s)",
                         what, detail);
    case SQLITE_READONLY:
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: database is read-only (%s)", what, detail);
    case SQLITE_CANTOPEN:
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: cannot open database (%s)", what, detail);
    case SQLITE_CONSTRAINT:
        return rt_errorf(RT_ERR_BAD_INPUT, "%s: %s", what, detail);
    default:
        return rt_errorf(RT_ERR_INTERNAL, "%s: %s", what, detail);
    }
}

rt_status rt_store_sql_error(struct rt_store *store, int rc, const char *what)
{
    return rt_store_rc_status(rc, what, sqlite3_errmsg(store->db));
}

rt_status rt_store_stmt(struct rt_store *store, const char *sql, sqlite3_stmt **stmt_out)
{
    uint64_t key = (uint64_t)(uintptr_t)sql;
    uint64_t value = 0;
    if (rt_hashmap_get(&store->stmts, key, &value)) {
        *stmt_out = (sqlite3_stmt *)(uintptr_t)value;
        return rt_ok_status();
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v3(store->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rt_store_sql_error(store, rc, "preparing a statement");
    if (!rt_hashmap_put(&store->stmts, key, (uint64_t)(uintptr_t)stmt)) {
        sqlite3_finalize(stmt);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory caching a statement");
    }
    *stmt_out = stmt;
    return rt_ok_status();
}

void rt_store_stmt_done(sqlite3_stmt *stmt)
{
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

rt_status rt_store_exec_stmt(struct rt_store *store, sqlite3_stmt *stmt, const char *what)
{
    int rc = sqlite3_step(stmt);
    rt_store_stmt_done(stmt);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW)
        return rt_ok_status();
    return rt_store_sql_error(store, rc, what);
}

static rt_status exec_cached(struct rt_store *store, const char *sql, const char *what)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    return rt_store_exec_stmt(store, stmt, what);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

rt_status rt_store_tx_begin(struct rt_store *store)
{
    if (store->tx_depth > 0) {
        store->tx_depth++;
        return rt_ok_status();
    }
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "BEGIN IMMEDIATE", &stmt));
    /* The busy handler already waited busy_timeout_ms; SQLite still returns
     * SQLITE_BUSY at once in a few cases (WAL recovery by another process),
     * so retry a little before calling the database locked. */
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < BUSY_RETRIES; attempt++) {
        rc = sqlite3_step(stmt);
        rt_store_stmt_done(stmt);
        if ((rc & 0xff) != SQLITE_BUSY)
            break;
        sleep_ms(20 + 20 * attempt);
    }
    if (rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "starting a write transaction");
    store->tx_depth = 1;
    store->tx_failed = false;
    return rt_ok_status();
}

rt_status rt_store_tx_end(struct rt_store *store, rt_status result)
{
    if (store->tx_depth <= 0) {
        rt_status_free(&result);
        return rt_errorf(RT_ERR_INTERNAL, "transaction ended twice");
    }
    if (!rt_ok(&result))
        store->tx_failed = true;
    if (--store->tx_depth > 0)
        return result;
    if (store->tx_failed) {
        rt_status s = exec_cached(store, "ROLLBACK", "rolling back");
        if (rt_ok(&result))
            return s;
        rt_status_free(&s); /* the error that failed the transaction is the one said */
        return result;
    }
    rt_status s = exec_cached(store, "COMMIT", "committing");
    if (!rt_ok(&s))
        (void)rt_status_drop(exec_cached(store, "ROLLBACK", "rolling back"));
    return s;
}

rt_status rt_store_trace_id(struct rt_store *store, const char *name, int64_t *id_out)
{
    if (!name || !*name)
        return rt_errorf(RT_ERR_USAGE, "a trace name is required");
    sqlite3_stmt *ins = NULL, *sel = NULL;
    RT_TRY(rt_store_stmt(store, "INSERT OR IGNORE INTO traces (name) VALUES (?1)", &ins));
    sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
    RT_TRY(rt_store_exec_stmt(store, ins, "adding a trace"));
    RT_TRY(rt_store_stmt(store, "SELECT id FROM traces WHERE name = ?1", &sel));
    sqlite3_bind_text(sel, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(sel);
    if (rc == SQLITE_ROW)
        *id_out = sqlite3_column_int64(sel, 0);
    rt_store_stmt_done(sel);
    if (rc != SQLITE_ROW)
        return rt_store_sql_error(store, rc, "looking up a trace");
    return rt_ok_status();
}

void rt_store_hash(const void *data, size_t size, char hex_out[RT_STORE_HASH_HEX + 1])
{
    rt_store_hash_hex(data, size, hex_out);
}

void rt_store_hash_hex(const void *data, size_t size, char *hex_out)
{
    XXH128_canonical_t canon;
    XXH128_canonicalFromHash(&canon, XXH3_128bits(data, size));
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof canon.digest; i++) {
        hex_out[2 * i] = digits[canon.digest[i] >> 4];
        hex_out[2 * i + 1] = digits[canon.digest[i] & 15];
    }
    hex_out[RT_STORE_HASH_HEX] = '\0';
}

char *rt_store_column_strdup(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return strdup(text ? (const char *)text : "");
}

void rt_store_set_busy_timeout(struct rt_store *store, int milliseconds)
{
    store->busy_timeout_ms = milliseconds;
    sqlite3_busy_timeout(store->db, milliseconds);
}

void rt_store_close(struct rt_store *store)
{
    if (!store)
        return;
    if (store->db) {
        sqlite3_stmt *stmt;
        while ((stmt = sqlite3_next_stmt(store->db, NULL)))
            sqlite3_finalize(stmt);
        sqlite3_close(store->db);
    }
    rt_hashmap_finish(&store->stmts);
    free(store->path);
    free(store);
}

/* Reads one integer from a statement that returns a single row. */
static rt_status query_int(struct rt_store *store, const char *sql, const char *what,
                           int64_t *value_out)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql, &stmt));
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        *value_out = sqlite3_column_int64(stmt, 0);
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW)
        return rt_store_sql_error(store, rc, what);
    return rt_ok_status();
}

/*
 * A WAL-mode store is read through PATH-shm, which SQLite creates on first
 * read: in a directory the reader may not write (a published or read-only
 * mounted store) it cannot, and every read fails "attempt to write a readonly
 * database". No writer can be active there without those files, so the file
 * is opened immutable (no locks, no -shm). https://sqlite.org/wal.html#readonly
 */
static bool unwritable_without_wal(const char *path)
{
    char side[PATH_MAX], dir[PATH_MAX];
    for (const char *suffix = "-wal"; suffix; suffix = strcmp(suffix, "-wal") ? NULL : "-shm") {
        if ((size_t)snprintf(side, sizeof side, "%s%s", path, suffix) >= sizeof side ||
            access(side, F_OK) == 0)
            return false;
    }
    snprintf(dir, sizeof dir, "%s", path);
    return access(dirname(dir), W_OK) != 0;
}

/* "file:PATH?immutable=1", PATH percent-encoded where a URI needs it. */
static bool immutable_uri(const char *path, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(out, size, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c && n + 4 < size; c++) {
        if (*c == '%' || *c == '?' || *c == '#' || *c <= ' ' || *c >= 0x7f) {
            out[n++] = '%';
            out[n++] = hex[*c >> 4];
            out[n++] = hex[*c & 15];
        } else {
            out[n++] = (char)*c;
        }
    }
    return (size_t)snprintf(out + n, size - n, "?immutable=1") < size - n;
}

static int open_sqlite(struct rt_store *store, int flags)
{
    char uri[3 * PATH_MAX + 32];
    if (store->mode == RT_STORE_READ_ONLY && unwritable_without_wal(store->path) &&
        immutable_uri(store->path, uri, sizeof uri))
        return sqlite3_open_v2(uri, &store->db, flags | SQLITE_OPEN_URI, NULL);
    return sqlite3_open_v2(store->path, &store->db, flags, NULL);
}

static rt_status open_connection(struct rt_store *store)
{
    /* NOMUTEX: a connection is one thread's at a time (its statement cache
     * and transaction depth are not locked either; the server gives each
     * worker its own and the writer a mutex of its own), so SQLite's own
     * lock around every call (bind, step, column) is only cost: 6% of a
     * 20,000-result upload's instructions. */
    int flags = (store->mode == RT_STORE_READ_ONLY ? SQLITE_OPEN_READONLY
                                                   : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
    if (store->mode == RT_STORE_CREATE)
        flags |= SQLITE_OPEN_CREATE;
    int rc = open_sqlite(store, flags);
    if (rc != SQLITE_OK)
        return rt_store_rc_status(rc, "opening",
                                  store->db ? sqlite3_errmsg(store->db) : sqlite3_errstr(rc));
    rt_store_set_busy_timeout(store, DEFAULT_BUSY_TIMEOUT_MS);
    /* SQLite quietly opens a file it may not write read-only; say so now
     * rather than at the first write. */
    if (store->mode != RT_STORE_READ_ONLY && sqlite3_db_readonly(store->db, "main") == 1)
        return rt_errorf(RT_ERR_BAD_INPUT,
                         "database is read-only (no write permission), cannot write to it");
    return exec_cached(store, "PRAGMA foreign_keys = ON", "enabling foreign keys");
}

static rt_status check_not_foreign(struct rt_store *store)
{
    /* Tables and version read in one snapshot: another process may create
     * the store between two separate reads (its tables, then its version). */
    int64_t tables = 0;
    RT_TRY(query_int(store,
                     "SELECT count(*) FROM sqlite_master "
                     "WHERE (SELECT user_version FROM pragma_user_version) = 0",
                     "reading the schema", &tables));
    if (tables > 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "a SQLite database but not a retrace store");
    return rt_ok_status();
}

/* quick_check of one table and its indexes: "ok" or the first problem, into *VERDICT. */
static rt_status check_table(struct rt_store *store, const char *table, char **verdict)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "SELECT * FROM pragma_quick_check(?1)", &stmt));
    sqlite3_bind_text(stmt, 1, table, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    *verdict = rc == SQLITE_ROW ? rt_store_column_strdup(stmt, 0) : NULL;
    rt_store_stmt_done(stmt);
    if (rc != SQLITE_ROW)
        return rt_store_sql_error(store, rc, "checking the database");
    return *verdict ? rt_ok_status() : rt_errorf(RT_ERR_INTERNAL, "out of memory");
}

/*
 * Every table but those that grow with every night's results is checked
 * when a store is opened for writing: a whole quick_check of a farm's store
 * (10 million results, 2 GB) took 148 s at each `retrace serve` and `retrace
 * run`. The pages of results, images, series and run_counts are checked as
 * SQLite reads them: a damaged one fails that query as corrupt (BAD_INPUT).
 */
static const char sql_tables_to_check[] =
    "SELECT name FROM sqlite_master WHERE type = 'table'"
    " AND name NOT IN ('results', 'images', 'series', 'run_counts') ORDER BY rootpage";

static rt_status quick_check(struct rt_store *store)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, sql_tables_to_check, &stmt));
    char **tables = NULL;
    size_t count = 0;
    int rc;
    rt_status s = rt_ok_status();
    while (rt_ok(&s) && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        char **grown = realloc(tables, (count + 1) * sizeof *tables);
        if (!grown || !(grown[count] = rt_store_column_strdup(stmt, 0)))
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
        tables = grown ? grown : tables;
        count += rt_ok(&s);
    }
    rt_store_stmt_done(stmt);
    if (rt_ok(&s) && rc != SQLITE_DONE)
        s = rt_store_sql_error(store, rc, "checking the database");
    for (size_t i = 0; i < count; i++) {
        char *verdict = NULL;
        if (rt_ok(&s))
            s = check_table(store, tables[i], &verdict);
        if (rt_ok(&s) && strcmp(verdict, "ok"))
            s = rt_errorf(RT_ERR_BAD_INPUT, "database is corrupt: %s", verdict);
        free(verdict);
        free(tables[i]);
    }
    free(tables);
    return s;
}

/*
 * SQLite switches a store to WAL as a read transaction upgraded to a write
 * one (sqlite3BtreeSetVersion), and calls no busy handler for an upgrade:
 * while another process holds the write lock (one creating the same new
 * store) the switch fails at once with SQLITE_BUSY. Retry it for as long as
 * the busy timeout would have waited.
 */
static rt_status enable_wal(struct rt_store *store)
{
    sqlite3_stmt *stmt = NULL;
    RT_TRY(rt_store_stmt(store, "PRAGMA journal_mode = WAL", &stmt));
    int rc;
    for (long waited = 0;; waited += 10) {
        rc = sqlite3_step(stmt);
        rt_store_stmt_done(stmt);
        if ((rc & 0xff) != SQLITE_BUSY || waited >= store->busy_timeout_ms)
            break;
        sleep_ms(10);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rt_store_sql_error(store, rc, "enabling WAL mode");
    return rt_ok_status();
}

static rt_status prepare_schema(struct rt_store *store)
{
    int64_t version = 0;
    const int latest = rt_store_schema_version();
    RT_TRY(query_int(store, "PRAGMA user_version", "reading the schema version", &version));
    if (version > latest)
        return rt_errorf(RT_ERR_BAD_INPUT,
                         "database schema version %lld is newer than this retrace (%d)",
                         (long long)version, latest);
    if (version == 0)
        RT_TRY(check_not_foreign(store));
    if (store->mode == RT_STORE_READ_ONLY) {
        if (version == 0)
            return rt_errorf(RT_ERR_BAD_INPUT, "not a retrace store (empty database)");
        if (version < latest)
            return rt_errorf(RT_ERR_BAD_INPUT,
                             "database schema version %lld is older than this retrace (%d); "
                             "open it for writing once to migrate it",
                             (long long)version, latest);
        return rt_ok_status();
    }
    RT_TRY(enable_wal(store));
    if (version > 0)
        RT_TRY(quick_check(store));
    if (version < latest)
        RT_TRY(rt_store_schema_migrate(store->db, latest));
    return rt_ok_status();
}

/* SQLite counts every allocation under a global mutex unless told not to;
 * nothing here reads those counts, and the lock was 3% of an upload. It can
 * only be set before SQLite starts, so once, before the first connection. */
static void configure_sqlite(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* MISUSE if already started: kept as is */
}

rt_status rt_store_open(const char *path, enum rt_store_mode mode, struct rt_store **store_out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure_sqlite);
    *store_out = NULL;
    if (!path || !*path)
        return rt_errorf(RT_ERR_USAGE, "no database given (--db or RETRACE_DB)");
    struct stat st;
    if (mode != RT_STORE_CREATE && stat(path, &st) != 0)
        return rt_errorf(RT_ERR_BAD_INPUT, "database %s does not exist", path);
    struct rt_store *store = calloc(1, sizeof *store);
    if (!store || !(store->path = strdup(path))) {
        free(store);
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    }
    rt_hashmap_init(&store->stmts);
    store->mode = mode;
    rt_status s = open_connection(store);
    if (rt_ok(&s))
        s = prepare_schema(store);
    if (!rt_ok(&s)) {
        rt_store_close(store);
        return rt_status_wrap(s, "%s", path);
    }
    *store_out = store;
    return rt_ok_status();
}

/* Room for one more row in a growing array; false when memory runs out. */
static bool grow_rows(void **items, size_t *capacity, size_t count, size_t elem_size)
{
    if (count < *capacity)
        return true;
    size_t grown_capacity = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(*items, grown_capacity * elem_size);
    if (!grown)
        return false;
    *items = grown;
    *capacity = grown_capacity;
    return true;
}

rt_status rt_store_read_rows(struct rt_store *store, sqlite3_stmt *stmt, void **items, size_t *count,
                             size_t row_size, rt_store_row_read_fn read, const char *what)
{
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!grow_rows(items, &capacity, *count, row_size))
            return rt_errorf(RT_ERR_INTERNAL, "out of memory %s", what);
        RT_TRY(read(stmt, (char *)*items + (*count)++ * row_size));
    }
    return rc == SQLITE_DONE ? rt_ok_status() : rt_store_sql_error(store, rc, what);
}

/* ---- query plans ---------------------------------------------------------- */

static bool plan_worth_checking(const char *sql)
{
    static const char *const skip[] = {"BEGIN", "COMMIT", "ROLLBACK", "PRAGMA", "EXPLAIN"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (!strncmp(sql, skip[i], strlen(skip[i])))
            return false;
    return true;
}

/* EXPLAIN QUERY PLAN of SQL, its details one a line, into a malloc'd *PLAN_OUT. */
static rt_status explain(struct rt_store *store, const char *sql, char **plan_out)
{
    size_t size = strlen(sql) + 32;
    char *text = malloc(size);
    if (!text)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    snprintf(text, size, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(store->db, text, -1, &stmt, NULL);
    free(text);
    if (rc != SQLITE_OK)
        return rt_store_sql_error(store, rc, "explaining a statement");
    char *plan = strdup("");
    while (plan && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *detail = (const char *)sqlite3_column_text(stmt, 3);
        size_t n = strlen(plan), add = detail ? strlen(detail) : 0;
        char *grown = realloc(plan, n + add + 2);
        if (!grown) {
            free(plan);
            plan = NULL;
            break;
        }
        plan = grown;
        memcpy(plan + n, detail ? detail : "", add);
        plan[n + add] = '\n';
        plan[n + add + 1] = '\0';
    }
    sqlite3_finalize(stmt);
    if (!plan)
        return rt_errorf(RT_ERR_INTERNAL, "out of memory");
    *plan_out = plan;
    return rt_ok_status();
}

rt_status rt_store_query_plans(struct rt_store *store, rt_store_plan_fn fn, void *ctx)
{
    /* The SQL first: explaining prepares statements of its own. */
    char **sql = NULL;
    size_t count = 0;
    rt_status s = rt_ok_status();
    for (sqlite3_stmt *stmt = sqlite3_next_stmt(store->db, NULL); stmt && rt_ok(&s);
         stmt = sqlite3_next_stmt(store->db, stmt)) {
        const char *text = sqlite3_sql(stmt);
        if (!text || !plan_worth_checking(text))
            continue;
        char **grown = realloc(sql, (count + 1) * sizeof *sql);
        if (!grown || !(grown[count] = strdup(text))) {
            sql = grown ? grown : sql;
            s = rt_errorf(RT_ERR_INTERNAL, "out of memory");
            break;
        }
        sql = grown;
        count++;
    }
    for (size_t i = 0; i < count; i++) {
        char *plan = NULL;
        if (rt_ok(&s))
            s = explain(store, sql[i], &plan);
        if (rt_ok(&s))
            fn(sql[i], plan, ctx);
        free(plan);
        free(sql[i]);
    }
    free(sql);
    return s;
}
