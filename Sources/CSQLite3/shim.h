#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import: tells sqlite3_bind_* to copy the value.
static inline void (*hosted_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

// Extended result codes are function-like macros Swift does not import.
static const int hosted_sqlite_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;
static const int hosted_sqlite_constraint_primarykey = SQLITE_CONSTRAINT_PRIMARYKEY;

/// sqlite3_config is variadic, which Swift cannot call: turns off SQLite's memory statistics
/// (SQLITE_CONFIG_MEMSTATUS). With them on, every allocation SQLite makes takes one mutex shared
/// by all connections of the process. Must run before the first connection opens (SQLITE_MISUSE
/// after sqlite3_initialize).
static inline int hosted_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
