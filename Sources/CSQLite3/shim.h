#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import: tells sqlite3_bind_* to copy the value.
static inline void (*hosted_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

// Extended result codes are function-like macros Swift does not import.
static const int hosted_sqlite_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;
static const int hosted_sqlite_constraint_primarykey = SQLITE_CONSTRAINT_PRIMARYKEY;
