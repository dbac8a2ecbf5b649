/*
 * libical-parse FILE
 *
 * The floor for ICalKit's reader and writer: raw libical parsing a whole file with
 * icalparser_parse_string and serializing it back with icalcomponent_as_ical_string_r.
 * Reading the file into memory is not timed (ICalKit's bench does the same).
 *
 * Prints one line of key=value pairs, the format every contender in Benchmarks/ uses:
 *   parse_ms=… write_ms=… peak_rss_kib=… input_bytes=… output_bytes=… events=…
 * peak_rss_kib is getrusage(RUSAGE_SELF).ru_maxrss: the peak of this whole process
 * (input buffer, tree and output string together).
 *
 * Build: cc -O2 -o libical-parse libical-parse.c $(pkg-config --cflags --libs libical)
 */
#define _POSIX_C_SOURCE 200809L
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench-common.h"


int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: libical-parse FILE\n");
        return 2;
    }
    size_t length = 0;
    char *data = NULL;
    double parse_ms = 0;
    icalcomponent *root = read_and_parse("libical-parse", argv[1], &data, &length, &parse_ms);
    if (!root) return 1;

    double t2 = now_ms();
    char *text = icalcomponent_as_ical_string_r(root);
    double t3 = now_ms();
    size_t output = text ? strlen(text) : 0;

    /* Outside the timed regions: a count that shows the whole file was parsed. */
    int events = 0;
    icalcomponent *calendar = root;
    if (icalcomponent_isa(root) == ICAL_XROOT_COMPONENT)
        calendar = icalcomponent_get_first_component(root, ICAL_VCALENDAR_COMPONENT);
    for (icalcomponent *c = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT); c;
         c = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT))
        events++;

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);

    free(text);
    icalcomponent_free(root);
    free(data);

    printf("parse_ms=%.3f write_ms=%.3f peak_rss_kib=%ld input_bytes=%zu output_bytes=%zu events=%d\n",
           parse_ms, t3 - t2, usage.ru_maxrss, length, output, events);
    return 0;
}
