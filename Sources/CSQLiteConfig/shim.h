#ifndef CSQLITECONFIG_SHIM_H
#define CSQLITECONFIG_SHIM_H

// sqlite3_config is variadic, which Swift cannot call: this is the one setting OpenEventKit
// makes with it. SQLite itself comes from GRDB's GRDBSQLite module (the system's
// libsqlite3; the release build links its static archive).
#include <sqlite3.h>

/// Asks SQLite not to lay out room for a connection's first pages when its page cache
/// takes its first page (Debian's build lays out twenty pages and writes a header into each:
/// twenty fresh memory pages, for a connection that reads most pages through its memory
/// map). Pages are then allocated one by one as they are needed. Must be called before
/// SQLite is initialised (before the process opens its first database): returns
/// SQLITE_MISUSE afterwards, and changes nothing.
static inline int CSQLiteConfig_allocatePagesOneByOne(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

#endif
