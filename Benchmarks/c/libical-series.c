/*
 * libical-series FILE WINDOW_START WINDOW_END
 *
 * libical's side of the expansion query benchmark (Benchmarks/expansion-query.sh): the
 * work of `ical query` on a file of recurring series, done with libical's iterator by a
 * small driver. It reads and parses the file (icalparser_parse_string), then for every
 * VEVENT with an RRULE steps icalrecur_iterator_next from DTSTART (in DTSTART's zone: the
 * file's VTIMEZONE, else libical's built-in tzdata zone of that TZID; floating times as
 * UTC) until an instance starts at or after the window end (Unix seconds, [start, end)),
 * and prints every instance that intersects the window as one line: the UID, the start and
 * the end (DTSTART's duration added) as local ISO 8601 times. A VEVENT without RRULE is
 * printed when it intersects the window. Nothing is collected or sorted: each series'
 * instances are printed as they come.
 *
 * Prints a last line to standard error: occurrences=… series=… peak_rss_kib=…
 *
 * Build: cc -O2 -o libical-series libical-series.c $(pkg-config --cflags --libs libical)
 */
#define _POSIX_C_SOURCE 200809L
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench-common.h"

/* DTSTART or DTEND with its zone: the file's VTIMEZONE (libical resolves it), else the
 * built-in zone of its TZID. */
static struct icaltimetype zoned(icalcomponent *event, icalproperty_kind kind) {
    icalproperty *property = icalcomponent_get_first_property(event, kind);
    if (!property) return icaltime_null_time();
    struct icaltimetype value = icalproperty_get_datetime_with_component(property, event);
    if (!value.zone && !value.is_date) {
        icalparameter *tzid = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER);
        if (tzid) value.zone = icaltimezone_get_builtin_timezone(icalparameter_get_tzid(tzid));
    }
    return value;
}

/* An instant: zoned times through their zone, floating times and dates as UTC. */
static time_t instant(struct icaltimetype t) {
    return icaltime_as_timet_with_zone(t, t.zone ? t.zone : icaltimezone_get_utc_timezone());
}

static int intersects(time_t start, time_t end, time_t window_start, time_t window_end) {
    if (end > start) return start < window_end && end > window_start;
    return start >= window_start && start < window_end;
}

static void print_local(struct icaltimetype t, FILE *out) {
    if (t.is_date) fprintf(out, "%04d-%02d-%02d", t.year, t.month, t.day);
    else fprintf(out, "%04d-%02d-%02dT%02d:%02d:%02d", t.year, t.month, t.day, t.hour, t.minute, t.second);
}

static void print_occurrence(const char *uid, struct icaltimetype start, struct icaldurationtype length) {
    struct icaltimetype end = icaltime_add(start, length);
    fputs(uid, stdout);
    putchar(' ');
    print_local(start, stdout);
    putchar(' ');
    print_local(end, stdout);
    putchar('\n');
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: libical-series FILE WINDOW_START WINDOW_END (Unix seconds)\n");
        return 2;
    }
    time_t window_start = atoll(argv[2]), window_end = atoll(argv[3]);
    size_t length = 0;
    char *data = NULL;
    double parse_ms = 0;
    icalcomponent *root = read_and_parse("libical-series", argv[1], &data, &length, &parse_ms);
    if (!root) return 1;
    icalcomponent *calendar = root;
    if (icalcomponent_isa(root) == ICAL_XROOT_COMPONENT)
        calendar = icalcomponent_get_first_component(root, ICAL_VCALENDAR_COMPONENT);

    static char buffer[1 << 17];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    long occurrences = 0, series = 0;
    for (icalcomponent *event = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT); event;
         event = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT)) {
        struct icaltimetype dtstart = zoned(event, ICAL_DTSTART_PROPERTY);
        if (icaltime_is_null_time(dtstart)) continue;
        struct icaltimetype dtend = zoned(event, ICAL_DTEND_PROPERTY);
        const char *uid = icalcomponent_get_uid(event);
        if (!uid) uid = "";
        time_t start = instant(dtstart);
        time_t duration = icaltime_is_null_time(dtend) ? 0 : instant(dtend) - start;
        if (duration < 0) duration = 0;
        struct icaldurationtype length = icaldurationtype_from_int((int)duration);

        icalproperty *rrule = icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY);
        if (!rrule) {
            if (intersects(start, start + duration, window_start, window_end)) {
                print_occurrence(uid, dtstart, length);
                occurrences++;
            }
            continue;
        }
        series++;
        icalrecur_iterator *iterator = icalrecur_iterator_new(icalproperty_get_rrule(rrule), dtstart);
        if (!iterator) continue;
        for (struct icaltimetype next = icalrecur_iterator_next(iterator); !icaltime_is_null_time(next);
             next = icalrecur_iterator_next(iterator)) {
            next.zone = dtstart.zone;
            time_t at = instant(next);
            if (at >= window_end) break;
            if (!intersects(at, at + duration, window_start, window_end)) continue;
            print_occurrence(uid, next, length);
            occurrences++;
        }
        icalrecur_iterator_free(iterator);
    }
    fflush(stdout);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    fprintf(stderr, "occurrences=%ld series=%ld parse_ms=%.3f peak_rss_kib=%ld\n", occurrences, series, parse_ms,
            usage.ru_maxrss);
    icalcomponent_free(root);
    free(data);
    return 0;
}
