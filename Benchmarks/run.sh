#!/bin/sh
# Benchmarks ICalKit against raw libical (the floor) and Python peers (icalendar,
# recurring-ical-events, ics-query), all measured in the same run on the same generated
# files: parse and write, recurrence expansion over a month and a year, and a one-week
# `ical query` end to end. See Benchmarks/README.md.
#
#   sh Benchmarks/run.sh            (or `make bench` from the top folder)
#
# Environment:
#   BENCH_SIZES        event counts to generate and measure   (default "1000 10000 100000")
#   BENCH_RUNS         runs per contender; medians are shown  (default 5)
#   BENCH_PYTHON_RUNS  runs of the Python peer                (default BENCH_RUNS, but 1 at 100,000+ events)
#   BENCH_PYTHON       0 skips the Python peers               (default 1)
#   BENCH_MONTH        expansion's month window                (default 2026-03: 2026-03-01 to 2026-04-01 UTC)
#   BENCH_YEAR         expansion's year window                 (default 2026)
#   BENCH_WEEK         the query's Monday (+7d)                (default 2026-03-02)
#   BENCH_SEED         generator seed                         (default 42)
#   BENCH_RESULTS      where the Markdown table is written    (default Benchmarks/results/latest.md)
#   BENCH_CLOCK        cpu: in-process figures in CPU time    (default: wall clock; for development)
#   SWIFT, CC          the compilers                          (default swift, cc)
#
# Every contender prints one line of key=value pairs (parse_ms, write_ms, peak_rss_kib,
# input_bytes, output_bytes, events); each measurement is a process of its own, so a peak
# RSS belongs to that measurement alone. Targets are informative: a MISS never fails the run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

SIZES=${BENCH_SIZES:-"1000 10000 100000"}
RUNS=${BENCH_RUNS:-5}
SEED=${BENCH_SEED:-42}
PYTHON_ENABLED=${BENCH_PYTHON:-1}
RESULTS=${BENCH_RESULTS:-"$here/results/latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}

# The issue's targets for ICalKit against raw libical in the same run.
TARGET_TIME=1.5
TARGET_MEMORY=2.0
# Expansion (issue 3) and the one-week query (issue 4): within TARGET_TIME of raw libical
# (its expansion; its parse for the query) and at least TARGET_PEER times faster than the
# Python peer (recurring-ical-events; ics-query).
TARGET_PEER=30

# The windows lie inside the generator's DTSTART range (2020 to 2027). Windows are UTC, and
# floating times and dates are read as UTC by every contender.
MONTH=${BENCH_MONTH:-2026-03}
YEAR=${BENCH_YEAR:-2026}
WEEK=${BENCH_WEEK:-2026-03-02}
unix() { date -u -d "$1" +%s; }
month_start=$(unix "$MONTH-01")
month_end=$(unix "$MONTH-01 +1 month")
year_start=$(unix "$YEAR-01-01")
year_end=$(unix "$YEAR-01-01 +1 year")
week_start=$(unix "$WEEK")
week_end=$(unix "$WEEK +7 days")

say() { printf '%s\n' "$*" >&2; }

# MARK: Build

say "bench: building the benchmarks (release)"
"$SWIFT" build -c release --package-path "$here" >&2
BIN=$("$SWIFT" build -c release --package-path "$here" --show-bin-path)
mkdir -p "$here/.build" "$here/work"
LIBICAL_PARSE="$here/.build/libical-parse"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$LIBICAL_PARSE" "$here/c/libical-parse.c" $(pkg-config --cflags --libs libical)
LIBICAL_EXPAND="$here/.build/libical-expand"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$LIBICAL_EXPAND" "$here/c/libical-expand.c" $(pkg-config --cflags --libs libical)
RUN_TIMED="$here/.build/run-timed"
"$CC" -O2 -Wall -o "$RUN_TIMED" "$here/c/run-timed.c"

# The `ical` command line, built at the top as users build it.
say "bench: building ical (release)"
ICAL_PACKAGE_ROOT="$(cd "$here/.." && pwd)"
. "$here/../scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$here/.." --product ical >&2
ICAL="$("$SWIFT" build -c release --package-path "$here/.." --show-bin-path)/ical"

python_note=""
if [ "$PYTHON_ENABLED" = 1 ]; then
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        python_note="Python peer skipped: $PYTHON not found."
    elif ! "$PYTHON" -c 'import icalendar' >/dev/null 2>&1; then
        say "bench: installing icalendar (bench-only) with pip"
        if ! PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --quiet --disable-pip-version-check icalendar >&2 ||
           ! "$PYTHON" -c 'import icalendar' >/dev/null 2>&1; then
            python_note="Python peer skipped: pip could not install icalendar."
        fi
    fi
else
    python_note="Python peer skipped: BENCH_PYTHON=0."
fi
[ -n "$python_note" ] && say "bench: $python_note"
python_ok() { [ -z "$python_note" ]; }

# recurring-ical-events and ics-query go into a venv of their own under work/ (bench-only).
VENV="$here/work/venv"
peers_note=""
if [ "$PYTHON_ENABLED" = 1 ] && command -v "$PYTHON" >/dev/null 2>&1; then
    if ! "$VENV/bin/python" -c 'import recurring_ical_events, ics_query' >/dev/null 2>&1; then
        say "bench: installing recurring-ical-events and ics-query (bench-only) into work/venv"
        if ! { [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" >&2; } ||
           ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check recurring-ical-events ics-query >&2 ||
           ! "$VENV/bin/python" -c 'import recurring_ical_events, ics_query' >/dev/null 2>&1; then
            peers_note="recurring-ical-events and ics-query skipped: pip could not install them into work/venv."
        fi
    fi
else
    peers_note="recurring-ical-events and ics-query skipped: ${python_note:-no Python}"
fi
[ -n "$peers_note" ] && say "bench: $peers_note"
peers_ok() { [ -z "$peers_note" ]; }

# MARK: Files

# The generator's sources name the files, so a changed generator never reuses old files.
generator_hash=$(cat "$here"/Sources/ical-generate/*.swift | cksum | cut -d' ' -f1)

calendar_file() {
    file="$here/work/events-$1-seed$SEED-$generator_hash.ics"
    if [ ! -f "$file" ]; then
        say "bench: generating $1 events"
        "$BIN/ical-generate" --events "$1" --seed "$SEED" -o "$file.tmp"
        mv "$file.tmp" "$file"
    fi
    printf '%s\n' "$file"
}

# MARK: Measuring

raw="$here/work/raw"
rm -rf "$raw"
mkdir -p "$raw"

# measure NAME SIZE COMMAND...: runs one measurement, appending its line to raw/SIZE-NAME.
measure() {
    name=$1 size=$2
    shift 2
    if line=$("$@"); then
        printf '%s\n' "$line" >>"$raw/$size-$name"
    else
        say "bench: $name failed on $size events"
        printf 'failed=1\n' >>"$raw/$size-$name"
    fi
}

# field SIZE NAME KEY: the median of KEY over every run of NAME, or "-".
field() {
    file="$raw/$1-$2"
    [ -f "$file" ] || { echo -; return; }
    tr ' ' '\n' <"$file" | sed -n "s/^$3=//p" | sort -n | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "-"; exit }
            if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
        }'
}

# timed_query NAME SIZE COUNTER COMMAND...: one end-to-end process through run-timed, its
# output in raw/; COUNTER (json, ics or libical) counts the occurrences it printed (untimed).
timed_query() {
    name=$1 size=$2 counter=$3
    shift 3
    out="$raw/$size-$name.out"
    if line=$("$RUN_TIMED" "$out" "$@"); then
        case $counter in
            json) count=$(grep -c '"uid":' "$out" || true) ;;
            ics) count=$(grep -c '^BEGIN:VEVENT' "$out" || true) ;;
            libical) count=$(tr ' ' '\n' <"$out" | sed -n 's/^month_occurrences=//p') ;;
        esac
        printf '%s occurrences=%s\n' "$line" "$count" >>"$raw/$size-$name"
    else
        say "bench: $name failed on $size events"
        printf 'failed=1\n' >>"$raw/$size-$name"
    fi
}

# first SIZE NAME KEY: KEY from the first run (counts, versions, checks).
first() {
    file="$raw/$1-$2"
    [ -f "$file" ] || { echo -; return; }
    tr ' ' '\n' <"$file" | sed -n "s/^$3=//p" | head -n 1
}

python_runs_for() {
    if [ -n "${BENCH_PYTHON_RUNS:-}" ]; then echo "$BENCH_PYTHON_RUNS"
    elif [ "$1" -ge 100000 ]; then echo 1
    else echo "$RUNS"
    fi
}

load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)

# Runs are interleaved (one of each contender per round) so a noisy neighbour on a shared
# machine spreads over all contenders instead of landing on one.
for size in $SIZES; do
    file=$(calendar_file "$size")
    python_runs=$(python_runs_for "$size")
    round=1
    while [ "$round" -le "$RUNS" ] || { { python_ok || peers_ok; } && [ "$round" -le "$python_runs" ]; }; do
        say "bench: $size events, round $round"
        if [ "$round" -le "$RUNS" ]; then
            measure libical "$size" "$LIBICAL_PARSE" "$file"
            measure icalkit-read "$size" "$BIN/ical-bench" read "$file"
            measure icalkit-write "$size" "$BIN/ical-bench" write "$file"
            measure libical-expand "$size" "$LIBICAL_EXPAND" "$file" "$month_start" "$month_end" "$year_start" "$year_end"
            measure icalkit-expand "$size" "$BIN/ical-bench" expand "$file" "$month_start" "$month_end" "$year_start" "$year_end"
            timed_query ical-query "$size" json "$ICAL" query --between "$WEEK" +7d --tz UTC --format json "$file"
            timed_query libical-week "$size" libical "$LIBICAL_EXPAND" "$file" "$week_start" "$week_end"
        fi
        if python_ok && [ "$round" -le "$python_runs" ]; then
            measure icalendar "$size" "$PYTHON" "$here/python/icalendar_parse.py" "$file"
        fi
        if peers_ok && [ "$round" -le "$python_runs" ]; then
            measure recurring "$size" "$VENV/bin/python" "$here/python/recurring_expand.py" "$file" \
                "$month_start" "$month_end" "$year_start" "$year_end"
            timed_query ics-query "$size" ics "$VENV/bin/ics-query" between --tz UTC --component VEVENT "$WEEK" +7d "$file" -
        fi
        round=$((round + 1))
    done
done

load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)

# MARK: Table

# row SIZE CONTENDER LABEL: one Markdown row; the libical row of the same size is the base.
row() {
    size=$1 name=$2 label=$3
    case $name in
        icalkit)
            parse=$(field "$size" icalkit-read parse_ms)
            write=$(field "$size" icalkit-write write_ms)
            # The write process holds input, tree and output, as libical-parse does: its
            # peak is the comparable one. The read process's peak is shown beside it.
            peak=$(field "$size" icalkit-write peak_rss_kib)
            read_peak=$(field "$size" icalkit-read peak_rss_kib)
            bytes=$(first "$size" icalkit-read input_bytes)
            runs=$(grep -c . "$raw/$size-icalkit-read" 2>/dev/null || echo 0)
            ;;
        *)
            parse=$(field "$size" "$name" parse_ms)
            write=$(field "$size" "$name" write_ms)
            peak=$(field "$size" "$name" peak_rss_kib)
            read_peak=-
            bytes=$(first "$size" "$name" input_bytes)
            runs=$(grep -c . "$raw/$size-$name" 2>/dev/null || echo 0)
            ;;
    esac
    base_parse=$(field "$size" libical parse_ms)
    base_write=$(field "$size" libical write_ms)
    base_peak=$(field "$size" libical peak_rss_kib)
    awk -v size="$size" -v label="$label" -v name="$name" -v runs="$runs" \
        -v parse="$parse" -v write="$write" -v peak="$peak" -v read_peak="$read_peak" -v bytes="$bytes" \
        -v bparse="$base_parse" -v bwrite="$base_write" -v bpeak="$base_peak" \
        -v ttime="$TARGET_TIME" -v tmem="$TARGET_MEMORY" '
        function num(x) { return x != "-" && x != "" }
        BEGIN {
            if (!num(parse) || !num(write) || !num(peak)) {
                printf "| %d | %s | - | - | - | - | - | - | - | - | - | failed |\n", size, label
                exit
            }
            total = parse + write
            mb = bytes / 1e6
            time_ratio = "-"; mem_ratio = "-"; verdict = "-"
            if (num(bparse) && num(bwrite) && num(bpeak)) {
                tr = total / (bparse + bwrite); mr = peak / bpeak
                time_ratio = sprintf("%.2f", tr); mem_ratio = sprintf("%.2f", mr)
                if (name == "icalkit") {
                    verdict = (tr <= ttime && mr <= tmem) ? "PASS" : "MISS"
                    if (tr > ttime) verdict = verdict " (time)"
                    if (mr > tmem) verdict = verdict " (memory)"
                }
            }
            rp = num(read_peak) ? sprintf("%.1f", read_peak / 1024) : "-"
            printf "| %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s | %.1f | %s | %s |\n",
                size, label, mb, parse, write, total, peak / 1024, rp, time_ratio, mem_ratio,
                mb / (parse / 1000), verdict, runs
        }'
}

# runs SIZE NAME: how many runs NAME has lines for.
runs() { grep -c . "$raw/$1-$2" 2>/dev/null || echo 0; }

# expansion_rows SIZE WINDOW: raw libical, ICalKit and recurring-ical-events over one window.
expansion_rows() {
    size=$1 window=$2
    base=$(field "$size" libical-expand "${window}_ms")
    icalkit=$(field "$size" icalkit-expand "${window}_ms")
    peer=$(field "$size" recurring "${window}_ms")
    for name in libical-expand icalkit-expand recurring; do
        [ "$name" = recurring ] && ! peers_ok && continue
        case $name in
            libical-expand) label="raw libical (C)" ;;
            icalkit-expand) label="ICalKit" ;;
            recurring) label="recurring-ical-events" ;;
        esac
        awk -v size="$size" -v window="$window" -v label="$label" -v name="$name" \
            -v parse="$(field "$size" "$name" parse_ms)" -v expand="$(field "$size" "$name" "${window}_ms")" \
            -v occurrences="$(first "$size" "$name" "${window}_occurrences")" -v runs="$(runs "$size" "$name")" \
            -v base="$base" -v icalkit="$icalkit" -v peer="$peer" -v ttime="$TARGET_TIME" -v tpeer="$TARGET_PEER" '
            function num(x) { return x != "-" && x != "" }
            BEGIN {
                if (!num(expand)) { printf "| %d | %s | %s | - | - | - | - | - | failed | %s |\n", size, window, label, runs; exit }
                vs_base = num(base) && base > 0 ? sprintf("%.2f", expand / base) : "-"
                speedup = "-"; verdict = "-"
                if (name == "recurring" && num(icalkit) && icalkit > 0) speedup = sprintf("%.1f", expand / icalkit)
                if (name == "icalkit-expand") {
                    if (num(peer) && expand > 0) speedup = sprintf("%.1f", peer / expand)
                    verdict = (num(base) && expand <= ttime * base) ? "PASS" : "MISS (libical)"
                    if (num(peer) && peer < tpeer * expand) verdict = (verdict == "PASS" ? "MISS" : verdict) " (peer)"
                    if (!num(peer)) verdict = verdict ", peer not measured"
                }
                printf "| %d | %s | %s | %.1f | %.1f | %s | %s | %s | %s | %s |\n",
                    size, window, label, parse, expand, occurrences, vs_base, speedup, verdict, runs
            }'
    done
}

# query_rows SIZE: the one-week query end to end, against raw libical's parse of the file.
query_rows() {
    size=$1
    base=$(field "$size" libical parse_ms)
    icalkit=$(field "$size" ical-query wall_ms)
    peer=$(field "$size" ics-query wall_ms)
    for name in libical libical-week ical-query ics-query; do
        [ "$name" = ics-query ] && ! peers_ok && continue
        case $name in
            libical) label="raw libical (C)"; what="parse only, in process (the base)"; key=parse_ms; occurrences=- ;;
            libical-week) label="raw libical (C)"; what="process: read, parse, count the week (libical-expand)"; key=wall_ms
                occurrences=$(first "$size" "$name" occurrences) ;;
            ical-query) label="ical query"; what="process: \`ical query --between $WEEK +7d --tz UTC --format json\`"; key=wall_ms
                occurrences=$(first "$size" "$name" occurrences) ;;
            ics-query) label="ics-query"; what="process: \`ics-query between --tz UTC --component VEVENT $WEEK +7d FILE -\`"; key=wall_ms
                occurrences=$(first "$size" "$name" occurrences) ;;
        esac
        awk -v size="$size" -v label="$label" -v what="$what" -v name="$name" -v occurrences="$occurrences" \
            -v ms="$(field "$size" "$name" "$key")" -v peak="$(field "$size" "$name" peak_rss_kib)" \
            -v runs="$(runs "$size" "$name")" -v base="$base" -v icalkit="$icalkit" -v peer="$peer" \
            -v ttime="$TARGET_TIME" -v tpeer="$TARGET_PEER" '
            function num(x) { return x != "-" && x != "" }
            BEGIN {
                if (!num(ms)) { printf "| %d | %s | %s | - | - | - | - | - | failed | %s |\n", size, label, what, runs; exit }
                vs_base = num(base) && base > 0 ? sprintf("%.2f", ms / base) : "-"
                speedup = "-"; verdict = "-"
                if (name == "ics-query" && num(icalkit) && icalkit > 0) speedup = sprintf("%.1f", ms / icalkit)
                if (name == "ical-query") {
                    if (num(peer) && ms > 0) speedup = sprintf("%.1f", peer / ms)
                    verdict = (num(base) && ms <= ttime * base) ? "PASS" : "MISS (libical)"
                    if (num(peer) && peer < tpeer * ms) verdict = (verdict == "PASS" ? "MISS" : verdict) " (peer)"
                    if (!num(peer)) verdict = verdict ", peer not measured"
                }
                printf "| %d | %s | %s | %.1f | %s | %s | %s | %s | %s | %s |\n",
                    size, label, what, ms, occurrences, num(peak) ? sprintf("%.1f", peak / 1024) : "-",
                    vs_base, speedup, verdict, runs
            }'
    done
}

machine() {
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    [ -n "$cpu" ] || cpu=$(uname -m)
    memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || true)
    swift_version=$("$SWIFT" --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1)
    libical_version=$(pkg-config --modversion libical 2>/dev/null || echo unknown)
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- Machine: $(nproc) cores ($cpu), $memory memory, $(uname -s) $(uname -r)"
    echo "- Swift $swift_version (release build), libical $libical_version, $($CC --version | head -n 1)"
    if python_ok; then
        echo "- $("$PYTHON" --version 2>&1), icalendar $(for s in $SIZES; do first "$s" icalendar version; done | head -n 1)"
    fi
    if peers_ok; then
        echo "- work/venv: $("$VENV/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | awk '$1 ~ /^(recurring-ical-events|ics-query|icalendar)$/ { printf "%s%s %s", sep, $1, $2; sep = ", " }')"
    fi
    echo "- Load average (1 min) before and after measuring: $load_before and $load_after on $(nproc) cores (other processes' work shows up as noise)"
    python_runs=""
    if python_ok; then
        python_runs=" (Python: $(for s in $SIZES; do printf '%s ' "$(python_runs_for "$s")"; done | sed 's/ $//' | tr ' ' '/') for sizes $(echo $SIZES | tr ' ' '/'))"
    fi
    echo "- Runs: $RUNS per contender$python_runs, medians shown; seed $SEED"
}

report() {
    echo "# ICalKit benchmarks"
    echo
    machine
    echo
    echo "Parse and write of one generated VCALENDAR (see Benchmarks/README.md for the mix and for"
    echo "what each figure means). Ratios are against raw libical measured in the same run."
    echo "Target for ICalKit: total time within ${TARGET_TIME}x of libical and peak memory within ${TARGET_MEMORY}x."
    echo
    echo "| events | contender | file MB | parse ms | write ms | total ms | peak RSS MiB | read-only peak MiB | time × libical | memory × libical | parse MB/s | target | runs |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
    for size in $SIZES; do
        row "$size" libical "raw libical (C)"
        row "$size" icalkit "ICalKit"
        python_ok && row "$size" icalendar "Python icalendar"
    done
    echo
    for size in $SIZES; do
        events=$(first "$size" libical events)
        for name in icalkit-read icalkit-write icalendar libical-expand icalkit-expand recurring; do
            other=$(first "$size" "$name" events)
            if [ "$other" != - ] && [ -n "$other" ] && [ "$other" != "$events" ]; then
                echo "- Warning: at $size events, $name counted $other VEVENTs, libical $events."
            fi
        done
        errors=$(first "$size" icalkit-read errors)
        trip=$(first "$size" icalkit-write round_trip)
        echo "- $size events: $events VEVENTs (overrides included); ICalKit read errors: $errors; ICalKit write of the read tree: $trip to the input."
    done
    [ -n "$python_note" ] && echo "- $python_note"
    echo
    echo "## Recurrence expansion (issue 3)"
    echo
    echo "Every VEVENT of the same files over a month ($MONTH) and a year ($YEAR), UTC windows, floating"
    echo "times read as UTC. Each process parses once (parse ms, not part of the ratio), then expands"
    echo "the month, then the year. ICalKit: \`OccurrenceQuery.run\` (zones, grouping by UID, overrides,"
    echo "EXDATE, RDATE, sorted matches). Raw libical: \`icalrecur_iterator\` per RRULE (jumping to the"
    echo "window with \`icalrecur_iterator_set_start\` when there is no COUNT), EXDATE skipped, overrides"
    echo "counted as plain events, nothing collected. recurring-ical-events: \`of(calendar).between\`."
    echo "Target for ICalKit: expansion within ${TARGET_TIME}x of raw libical and at least ${TARGET_PEER}x faster than"
    echo "recurring-ical-events. Occurrence counts differ by design; see Benchmarks/README.md."
    echo
    echo "| events | window | contender | parse ms | expand ms | occurrences | expand × libical | ICalKit speed-up over it | target | runs |"
    echo "|---:|---|---|---:|---:|---:|---:|---:|---|---:|"
    for size in $SIZES; do
        expansion_rows "$size" month
        expansion_rows "$size" year
    done
    echo
    echo "## One-week query end to end (issue 4)"
    echo
    echo "\`ical query\` for the week from $WEEK (+7d, UTC) over the same files, timed from process start"
    echo "to exit by \`c/run-timed.c\` (output to a file), against raw libical's in-process parse of the"
    echo "file (from \`c/libical-parse.c\`, the parse table's figure) and against ics-query on the same"
    echo "window. Target for \`ical query\`: within ${TARGET_TIME}x of raw libical's parse and at least ${TARGET_PEER}x faster"
    echo "than ics-query."
    echo
    echo "| events | contender | what is timed | ms | occurrences | peak RSS MiB | × libical parse | ical query speed-up over it | target | runs |"
    echo "|---:|---|---|---:|---:|---:|---:|---:|---|---:|"
    for size in $SIZES; do
        query_rows "$size"
    done
    [ -n "$peers_note" ] && echo && echo "- $peers_note"
    true
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "bench: table written to $RESULTS"
if [ "${BENCH_STORE:-1}" = 1 ]; then sh "$here/store.sh"; fi   # store benchmarks (issue 8): Benchmarks/store.sh; BENCH_STORE=0 skips them
if [ "${BENCH_FLOOR:-1}" = 1 ]; then sh "$here/query-floor.sh"; fi   # warm queries at the floor (issue 15): Benchmarks/query-floor.sh; BENCH_FLOOR=0 skips it
if [ "${BENCH_CALDAV:-1}" = 1 ]; then sh "$here/caldav.sh"; fi  # CalDAV sync against vdirsyncer (issue 13): Benchmarks/caldav.sh; BENCH_CALDAV=0 skips it
if [ "${BENCH_RULES:-1}" = 1 ]; then sh "$here/rules.sh"; fi    # rule expansion against libical and dateutil (issue 19): Benchmarks/rules.sh; BENCH_RULES=0 skips it
if [ "${BENCH_MEMORY:-1}" = 1 ]; then sh "$here/memory.sh"; fi  # peak memory of import and convert (issue 15): Benchmarks/memory.sh; BENCH_MEMORY=0 skips it
if [ "${BENCH_EXPANSION:-1}" = 1 ]; then sh "$here/expansion-query.sh"; fi  # a query that is mostly expansion, against libical (issue 19): Benchmarks/expansion-query.sh; BENCH_EXPANSION=0 skips it
if [ "${BENCH_BROKER:-1}" = 1 ]; then sh "$here/broker.sh"; fi  # in process and through the broker (issue 37): Benchmarks/broker.sh; BENCH_BROKER=0 skips it
if [ "${BENCH_SCALE:-1}" = 1 ]; then sh "$here/scale.sh"; fi  # 10^4 to 10^6 events: import, store and file queries, convert (issue 42): Benchmarks/scale.sh; BENCH_SCALE=0 skips it
