/*
 * libical-expand FILE MONTH_START MONTH_END [YEAR_START YEAR_END]
 *
 * The floor for ICalKit's recurrence expansion: raw libical parses the whole file once
 * (icalparser_parse_string, timed as parse_ms), then, for each window (Unix seconds,
 * [start, end); the second is optional), walks every VEVENT (timed as month_ms and year_ms):
 *
 * - with RRULE: icalrecur_iterator_new from DTSTART, moved with icalrecur_iterator_set_start
 *   to the window start (less the event's duration) when the rule has no COUNT, stepping
 *   until an instance starts at or after the window end; an instance counts when it
 *   intersects the window and is not one of the event's EXDATEs.
 * - without RRULE (single events and RECURRENCE-ID overrides alike): counts when it
 *   intersects the window.
 *
 * Floating times and dates are read as UTC (ICalKit's bench uses UTC as the floating zone
 * too); zoned times are converted with the file's VTIMEZONEs. What this does not do, on
 * purpose (it is a floor, not a full expansion): an override does not replace the instance
 * it moves (both count), RDATE is ignored, and the results are counted, not collected or
 * sorted. See Benchmarks/README.md.
 *
 * Prints one line of key=value pairs:
 *   parse_ms=… month_ms=… month_occurrences=… month_series=… month_singles=… year_ms=… …
 *   peak_rss_kib=… input_bytes=… events=…
 *
 * Build: cc -O2 -o libical-expand libical-expand.c $(pkg-config --cflags --libs libical)
 */
#define _POSIX_C_SOURCE 200809L
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench-common.h"


/* An instant: zoned times through their zone, floating times and dates as UTC. */
static time_t instant(struct icaltimetype t) {
    if (t.zone) return icaltime_as_timet_with_zone(t, t.zone);
    return icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone());
}

static int intersects(time_t start, time_t end, time_t window_start, time_t window_end) {
    if (end > start) return start < window_end && end > window_start;
    return start >= window_start && start < window_end;  /* zero length: its start */
}

struct counts {
    long occurrences;  /* everything in the window */
    long series;       /* recurring masters walked */
    long singles;      /* non-recurring VEVENTs (overrides included) in the window */
};

static struct counts expand(icalcomponent *calendar, time_t window_start, time_t window_end) {
    struct counts counts = {0, 0, 0};
    time_t exdates[256];
    for (icalcomponent *event = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT); event;
         event = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT)) {
        struct icaltimetype dtstart = icalcomponent_get_dtstart(event);
        if (icaltime_is_null_time(dtstart)) continue;
        struct icaltimetype dtend = icalcomponent_get_dtend(event);
        time_t start = instant(dtstart);
        time_t duration = icaltime_is_null_time(dtend) ? 0 : instant(dtend) - start;
        if (duration < 0) duration = 0;

        icalproperty *rrule_property = icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY);
        if (!rrule_property) {
            if (intersects(start, start + duration, window_start, window_end)) {
                counts.singles++;
                counts.occurrences++;
            }
            continue;
        }
        counts.series++;
        struct icalrecurrencetype rule = icalproperty_get_rrule(rrule_property);
        if (!icaltime_is_null_time(rule.until) && instant(rule.until) + duration <= window_start) continue;

        int exdate_count = 0;
        for (icalproperty *p = icalcomponent_get_first_property(event, ICAL_EXDATE_PROPERTY);
             p && exdate_count < 256; p = icalcomponent_get_next_property(event, ICAL_EXDATE_PROPERTY)) {
            struct icaltimetype exdate = icalproperty_get_exdate(p);
            if (!exdate.zone && dtstart.zone) {
                /* EXDATE;TZID=… resolves through the calendar like DTSTART. */
                icalparameter *tzid = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
                if (tzid) exdate.zone = dtstart.zone;
            }
            exdates[exdate_count++] = instant(exdate);
        }

        icalrecur_iterator *iterator = icalrecur_iterator_new(rule, dtstart);
        if (!iterator) continue;
        if (rule.count == 0 && window_start - duration > start) {
            struct icaltimetype jump = icaltime_from_timet_with_zone(
                window_start - duration, dtstart.is_date,
                dtstart.zone ? (icaltimezone *)dtstart.zone : icaltimezone_get_utc_timezone());
            if (!dtstart.zone) jump.zone = NULL;  /* floating rules jump in floating time */
            icalrecur_iterator_set_start(iterator, jump);
        }
        for (struct icaltimetype next = icalrecur_iterator_next(iterator); !icaltime_is_null_time(next);
             next = icalrecur_iterator_next(iterator)) {
            time_t at = instant(next);
            if (at >= window_end) break;
            if (!intersects(at, at + duration, window_start, window_end)) continue;
            int excluded = 0;
            for (int i = 0; i < exdate_count; i++)
                if (exdates[i] == at) { excluded = 1; break; }
            if (!excluded) counts.occurrences++;
        }
        icalrecur_iterator_free(iterator);
    }
    return counts;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 6) {
        fprintf(stderr, "usage: libical-expand FILE MONTH_START MONTH_END [YEAR_START YEAR_END] (Unix seconds)\n");
        return 2;
    }
    int window_count = argc == 6 ? 2 : 1;
    time_t windows[2][2] = {{atoll(argv[2]), atoll(argv[3])}, {0, 0}};
    if (window_count == 2) { windows[1][0] = atoll(argv[4]); windows[1][1] = atoll(argv[5]); }
    const char *names[2] = {"month", "year"};
    size_t length = 0;
    char *data = NULL;
    double parse_ms = 0;
    icalcomponent *root = read_and_parse("libical-expand", argv[1], &data, &length, &parse_ms);
    if (!root) return 1;
    icalcomponent *calendar = root;
    if (icalcomponent_isa(root) == ICAL_XROOT_COMPONENT)
        calendar = icalcomponent_get_first_component(root, ICAL_VCALENDAR_COMPONENT);

    printf("parse_ms=%.3f", parse_ms);
    for (int w = 0; w < window_count; w++) {
        double s = now_ms();
        struct counts counts = expand(calendar, windows[w][0], windows[w][1]);
        double e = now_ms();
        printf(" %s_ms=%.3f %s_occurrences=%ld %s_series=%ld %s_singles=%ld", names[w], e - s, names[w],
               counts.occurrences, names[w], counts.series, names[w], counts.singles);
    }

    int events = 0;
    for (icalcomponent *c = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT); c;
         c = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT))
        events++;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    icalcomponent_free(root);
    free(data);
    printf(" peak_rss_kib=%ld input_bytes=%zu events=%d\n", usage.ru_maxrss, length, events);
    return 0;
}
