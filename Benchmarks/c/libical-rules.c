/*
 * libical-rules RULES.txt
 *
 * The libical floor of the rule-expansion benchmark: for each line of RULES.txt (name |
 * kind | DTSTART | RRULE | window end, floating), reads the rule once
 * (icalrecurrencetype_from_string, not timed), then times icalrecur_iterator_new from
 * DTSTART and icalrecur_iterator_next until the rule ends or an instance reaches the window
 * end, counting instances. Each rule is expanded in 5 rounds of at least 50 ms (at least one
 * expansion each); the median round's time per expansion is printed, one line a rule:
 *   rule=NAME us=MICROSECONDS instances=N
 * An expansion that takes longer than 10 s is stopped and printed with stopped=1.
 *
 * Build: cc -O2 -o libical-rules libical-rules.c $(pkg-config --cflags --libs libical)
 */
#include "bench-common.h"

static long expand(struct icalrecurrencetype rule, struct icaltimetype start, struct icaltimetype end,
                   double deadline, int *stopped) {
    icalrecur_iterator *iterator = icalrecur_iterator_new(rule, start);
    if (!iterator) return -1;
    long count = 0;
    for (struct icaltimetype next = icalrecur_iterator_next(iterator); !icaltime_is_null_time(next);
         next = icalrecur_iterator_next(iterator)) {
        if (icaltime_compare(next, end) >= 0) break;
        count++;
        if ((count & 1023) == 0 && now_ms() > deadline) { *stopped = 1; break; }
    }
    icalrecur_iterator_free(iterator);
    return count;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *trim(char *text) {
    while (*text == ' ') text++;
    size_t length = strlen(text);
    while (length && (text[length - 1] == ' ' || text[length - 1] == '\n' || text[length - 1] == '\r')) text[--length] = 0;
    return text;
}

int main(int argc, char **argv) {
    (void)read_and_parse;  /* bench-common.h's, used by the other floors */
    if (argc != 2) { fprintf(stderr, "usage: libical-rules RULES.txt\n"); return 2; }
    FILE *file = fopen(argv[1], "r");
    if (!file) { perror(argv[1]); return 1; }
    char line[1024];
    while (fgets(line, sizeof line, file)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *fields[5];
        char *cursor = line;
        int n = 0;
        for (; n < 5; n++) {
            char *bar = strchr(cursor, '|');
            if (bar) *bar = 0;
            fields[n] = trim(cursor);
            if (!bar) { n++; break; }
            cursor = bar + 1;
        }
        if (n != 5) { fprintf(stderr, "libical-rules: bad line\n"); return 1; }
        struct icalrecurrencetype rule = icalrecurrencetype_from_string(fields[3]);
        if (rule.freq == ICAL_NO_RECURRENCE) { fprintf(stderr, "libical-rules: cannot read %s\n", fields[3]); return 1; }
        struct icaltimetype start = icaltime_from_string(fields[2]);
        struct icaltimetype end = icaltime_from_string(fields[4]);
        double rounds[5];
        long instances = 0;
        int stopped = 0;
        for (int round = 0; round < 5 && !stopped; round++) {
            double t0 = now_ms();
            long expansions = 0;
            do {
                instances = expand(rule, start, end, t0 + 10000, &stopped);
                expansions++;
            } while (!stopped && now_ms() - t0 < 50);
            rounds[round] = (now_ms() - t0) * 1000.0 / (double)expansions;
            if (stopped) { rounds[0] = rounds[round]; break; }
        }
        double us;
        if (stopped) {
            us = rounds[0];
        } else {
            qsort(rounds, 5, sizeof rounds[0], compare_doubles);
            us = rounds[2];
        }
        printf("rule=%s us=%.2f instances=%ld%s\n", fields[0], us, instances, stopped ? " stopped=1" : "");
        fflush(stdout);
    }
    fclose(file);
    return 0;
}
