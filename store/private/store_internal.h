/*
 * store/private/store_internal.h — what the store's own files share and
 * nothing else sees: the connection struct, the statement cache and the
 * transaction helpers (every sqlite3 type crossing a file boundary).
 * Must not be included outside store/ (the unit test of the store is the one
 * exception: it checks the schema and the transaction rules directly).
 */
#ifndef RT_STORE_INTERNAL_H
#define RT_STORE_INTERNAL_H

#include "store.h"

#include <sqlite3.h>

#include "hashmap.h"

struct rt_store {
    sqlite3 *db;
    char *path;
    enum rt_store_mode mode;
    int busy_timeout_ms;
    struct rt_hashmap stmts; /* SQL text address -> sqlite3_stmt * */
    int tx_depth;            /* nested rt_store_tx_begin calls */
    bool tx_failed;          /* an inner level failed: the outer one rolls back */
};

/** The cached statement for SQL (a static string), prepared on first use. */
RT_MUST_CHECK rt_status rt_store_stmt(struct rt_store *store, const char *sql,
                                      sqlite3_stmt **stmt_out);

/** Resets a statement after use so it can be bound again and holds no locks. */
void rt_store_stmt_done(sqlite3_stmt *stmt);

/**
 * Turns a SQLite result code into a status naming WHAT was being done:
 * busy/locked, corrupt/not-a-database and read-only are RT_ERR_BAD_INPUT
 * (the user's database), the rest RT_ERR_INTERNAL. DETAIL is SQLite's text.
 */
rt_status rt_store_rc_status(int rc, const char *what, const char *detail);

/** rt_store_rc_status with the connection's own error message. */
rt_status rt_store_sql_error(struct rt_store *store, int rc, const char *what);

/** Steps a statement that returns no rows; resets it. */
RT_MUST_CHECK rt_status rt_store_exec_stmt(struct rt_store *store, sqlite3_stmt *stmt,
                                           const char *what);

/** Begins (or nests into) a BEGIN IMMEDIATE transaction, retrying on SQLITE_BUSY. */
RT_MUST_CHECK rt_status rt_store_tx_begin(struct rt_store *store);

/** Ends one nesting level: commits at the outermost level unless anything failed. */
RT_MUST_CHECK rt_status rt_store_tx_end(struct rt_store *store, rt_status result);

/** The id of trace NAME, inserted if new (inside a write transaction). */
RT_MUST_CHECK rt_status rt_store_trace_id(struct rt_store *store, const char *name,
                                          int64_t *id_out);

/** XXH3-128 of DATA as lower-case hex into HEX_OUT (RT_STORE_HASH_HEX + 1 bytes). */
void rt_store_hash_hex(const void *data, size_t size, char *hex_out);

/** Brings DB's schema from its user_version up to TARGET (<= latest). */
RT_MUST_CHECK rt_status rt_store_schema_migrate(sqlite3 *db, int target);

/** strdup of a column's text, "" for NULL; NULL only when memory runs out. */
char *rt_store_column_strdup(sqlite3_stmt *stmt, int column);

#endif
