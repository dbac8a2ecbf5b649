/*
 * What the C floor programs share: a monotonic clock in milliseconds and reading a whole
 * file into a NUL-terminated buffer (not timed by the callers).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libical/ical.h>

/* BENCH_CLOCK=cpu measures the process's CPU time instead of wall time: steadier on a
   shared machine while developing (the committed tables use wall time). */
static double now_ms(void) {
    static int clock_id = -1;
    if (clock_id < 0) {
        const char *choice = getenv("BENCH_CLOCK");
        clock_id = choice && strcmp(choice, "cpu") == 0 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
    }
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); return NULL; }
    size_t capacity = 1 << 20, used = 0;
    char *data = malloc(capacity + 1);
    if (!data) { fclose(file); return NULL; }
    for (;;) {
        if (used == capacity) {
            capacity *= 2;
            char *grown = realloc(data, capacity + 1);
            if (!grown) { free(data); fclose(file); return NULL; }
            data = grown;
        }
        size_t n = fread(data + used, 1, capacity - used, file);
        used += n;
        if (n == 0) break;
    }
    int failed = ferror(file);
    fclose(file);
    if (failed) { perror(path); free(data); return NULL; }
    data[used] = '\0';
    *length = used;
    return data;
}

/* Reads `path` whole (not timed), then parses it with icalparser_parse_string, timing only
 * the parse into *parse_ms. Returns the root (the caller frees it with icalcomponent_free and
 * *data with free), or NULL after printing why, with `program` naming the caller. */
static icalcomponent *read_and_parse(const char *program, const char *path, char **data,
                                     size_t *length, double *parse_ms) {
    *data = read_file(path, length);
    if (!*data) return NULL;
    double t0 = now_ms();
    icalcomponent *root = icalparser_parse_string(*data);
    *parse_ms = now_ms() - t0;
    if (!root) {
        fprintf(stderr, "%s: libical could not parse %s\n", program, path);
        free(*data);
        *data = NULL;
    }
    return root;
}

#endif
