/*
 * sqlite-month INDEX START END
 *
 * The floor of a warm store query: a bare SQLite read of the rows that `ical query`'s
 * occurrence cache holds for the window [START, END) (Unix seconds), every row's listing
 * blob written to standard output, unsorted and unformatted. The floating zone is the one
 * the cache was filled for (the first in its `week` table). Prints to standard error one
 * line: rows=… bytes=…. Used by Benchmarks/query-floor.sh.
 *
 * Build: cc -O2 -o sqlite-month sqlite-month.c -lsqlite3
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: sqlite-month INDEX START END\n");
        return 2;
    }
    long long start = atoll(argv[2]), end = atoll(argv[3]);
    long long week = 604800;
    long long firstWeek = start >= 0 ? start / week : -((-start + week - 1) / week);
    long long last = end - 1 > start ? end - 1 : start;
    long long lastWeek = last >= 0 ? last / week : -((-last + week - 1) / week);
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite-month: cannot open %s: %s\n", argv[1], sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_stmt *zone, *rows;
    if (sqlite3_prepare_v2(db, "SELECT zone FROM week LIMIT 1", -1, &zone, NULL) != SQLITE_OK
        || sqlite3_step(zone) != SQLITE_ROW) {
        fprintf(stderr, "sqlite-month: no cached week in %s (run a query first)\n", argv[1]);
        return 1;
    }
    const char *sql =
        "SELECT collection, name, listing FROM occurrence WHERE zone = ?1 AND week BETWEEN ?2 AND ?3"
        " AND startInstant < ?4 AND (endInstant > ?5 OR (endInstant = startInstant AND startInstant >= ?5))";
    if (sqlite3_prepare_v2(db, sql, -1, &rows, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite-month: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_bind_text(rows, 1, (const char *)sqlite3_column_text(zone, 0), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(rows, 2, firstWeek);
    sqlite3_bind_int64(rows, 3, lastWeek);
    sqlite3_bind_int64(rows, 4, end);
    sqlite3_bind_int64(rows, 5, start);
    long long count = 0, bytes = 0;
    int step;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        int size = sqlite3_column_bytes(rows, 2);
        fwrite(sqlite3_column_blob(rows, 2), 1, (size_t)size, stdout);
        count++;
        bytes += size;
    }
    if (step != SQLITE_DONE) {
        fprintf(stderr, "sqlite-month: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    fprintf(stderr, "rows=%lld bytes=%lld\n", count, bytes);
    sqlite3_finalize(zone);
    sqlite3_finalize(rows);
    sqlite3_close(db);
    return 0;
}
