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

/** Fills one row of a list from the statement's current result row. */
typedef rt_status (*rt_store_row_read_fn)(sqlite3_stmt *stmt, void *row);

/**
 * Steps STMT to its end, READ filling one ROW_SIZE-byte row per result row at
 * the end of the growing array *ITEMS (*COUNT rows); WHAT names the list in
 * errors ("listing results").
 */
RT_MUST_CHECK rt_status rt_store_read_rows(struct rt_store *store, sqlite3_stmt *stmt, void **items, size_t *count,
                                           size_t row_size, rt_store_row_read_fn read, const char *what);

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

/* The id of the image with DATA's bytes in `images`, stored now if new
 * (schema 7: each image once per content hash, shared by results and
 * diagnoses); 0 for no image (DATA NULL or SIZE 0). */
RT_MUST_CHECK rt_status rt_store_image_id(struct rt_store *store, const void *data, size_t size, int64_t *id_out);

/** Brings DB's schema from its user_version up to TARGET (<= latest). */
RT_MUST_CHECK rt_status rt_store_schema_migrate(sqlite3 *db, int target);

/** strdup of a column's text, "" for NULL; NULL only when memory runs out. */
char *rt_store_column_strdup(sqlite3_stmt *stmt, int column);

/* ---- history (store_history.c) ------------------------------------------ */

struct rt_golden_state {
    bool exists, reverted;
    enum rt_golden_status status;
};

/** One change of a golden: its state before and after, who, why. */
struct rt_golden_change {
    int64_t golden_id;
    const char *action; /* a golden_events.action */
    struct rt_golden_state before, after;
    const char *by;
    int64_t result_id, undoes; /* 0 = none */
};

RT_MUST_CHECK rt_status rt_store_golden_state(struct rt_store *store, int64_t id,
                                              struct rt_golden_state *out);
bool rt_golden_state_same(const struct rt_golden_state *a, const struct rt_golden_state *b);

/** Puts the golden in C->after and records C as an event (inside a transaction). */
RT_MUST_CHECK rt_status rt_store_golden_event(struct rt_store *store,
                                              const struct rt_golden_change *c,
                                              int64_t *event_out);

#define RT_EXPECT_NOTE_MAX 4097

/** One expectation change (a kind of RT_EXPECT_NONE removes it). */
struct rt_expect_write {
    const char *trace, *device_key;
    enum rt_expect_kind kind;
    const char *note, *by;
    const char *updated_at; /* NULL = now */
    int64_t undoes;
};

/** Writes W and its history event (inside a transaction); *event_out 0 when
 * nothing changed. */
RT_MUST_CHECK rt_status rt_store_expectation_write(struct rt_store *store,
                                                   const struct rt_expect_write *w,
                                                   int64_t *event_out);

/** Undoes expectation event EVENT_ID (inside a transaction; store_golden.c). */
RT_MUST_CHECK rt_status rt_store_expectation_undo(struct rt_store *store, int64_t event_id,
                                                  const char *by, struct rt_store_undo *out);

/** Appends ROW(stmt) for every row of STMT to ARRAY; resets STMT. */
RT_MUST_CHECK rt_status rt_store_rows_json(struct rt_store *store, sqlite3_stmt *stmt,
                                           struct cJSON *(*row)(sqlite3_stmt *),
                                           struct cJSON *array, const char *what);

/** Inserts or finds golden IN and brings it to IN's status, not reverted, as one
 * event ACTION (none when nothing changed). FORCE_STATUS false keeps the
 * status of an existing row. NEVER_RESTORE leaves a reverted row reverted
 * (an upload must not bring back what the dashboard reverted). */
struct rt_golden_put {
    const struct rt_golden_new *in;
    const char *action;
    bool force_status, never_restore, set_approver;
    int64_t id, event_id;
    bool created;
};
/** Records who approved golden ID and when (AT NULL = now), and from which result. */
RT_MUST_CHECK rt_status rt_store_golden_set_approver(struct rt_store *store, int64_t id,
                                                     const char *by, const char *at,
                                                     int64_t from_result);

RT_MUST_CHECK rt_status rt_store_golden_put_tx(struct rt_store *store, struct rt_golden_put *put);

#endif
