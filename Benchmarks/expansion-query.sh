#!/bin/sh
# A query that is mostly expansion (issue 19): `ical query` over ten years of one file of
# 2,000 endless series (`ical-generate --series`: weekly, biweekly, last weekday of the month,
# second Tuesday, yearly, every third day, twice monthly; Europe/Berlin with its VTIMEZONE,
# America/New_York from tzdata, floating), in JSON, text, CSV and iCalendar, against libical's
# iterator driven by a small C program (c/libical-series.c: parse, expand every series in its
# zone, print each occurrence) and recurring-ical-events (python/recurring_series.py), in the
# same run. Whole processes, timed by c/run-timed.c (wall, CPU, peak RSS), output to a file
# through standard output. The occurrence lists of all three are compared (UID and start,
# sorted): a difference fails the run. See "A query that is mostly expansion" in
# Benchmarks/README.md.
#
#   sh Benchmarks/expansion-query.sh   (also a step of Benchmarks/run.sh; BENCH_EXPANSION=0 skips it there)
#
# Environment:
#   BENCH_EXPANSION_SERIES   series in the file                 (default 2000)
#   BENCH_EXPANSION_RUNS     rounds of ical and libical; medians (default 3)
#   BENCH_EXPANSION_RESULTS  the Markdown table                 (default Benchmarks/results/expansion-query-latest.md)
#   BENCH_EXPANSION_ICAL     an ical binary to measure instead of the release build at the top
#   BENCH_PYTHON             0 skips recurring-ical-events       (default 1)
#   BENCH_SEED               generator seed                     (default 42)
#   SWIFT, CC, PYTHON
#
# Goal (informative, a MISS never fails the run): every format at or below libical's time,
# and peak memory bounded by the number of series, not of occurrences.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$here"

SERIES=${BENCH_EXPANSION_SERIES:-2000}
RUNS=${BENCH_EXPANSION_RUNS:-3}
RESULTS=${BENCH_EXPANSION_RESULTS:-"$here/results/expansion-query-latest.md"}
SEED=${BENCH_SEED:-42}
PYTHON_ENABLED=${BENCH_PYTHON:-1}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
TZ=UTC
LC_ALL=C.UTF-8
export TZ LC_ALL
# Ten years; the generator's DTSTARTs lie in 2015, so every series covers all of them.
FROM=2016-01-01
TO=2026-01-01
window_start=$(date -u -d "$FROM" +%s)
window_end=$(date -u -d "$TO" +%s)

say() { printf '%s\n' "$*" >&2; }

say "expansion-query: building ical (release) at the top, ical-generate here, the C helpers"
if [ -n "${BENCH_EXPANSION_ICAL:-}" ]; then
    ICAL=$BENCH_EXPANSION_ICAL
else
    ICAL_PACKAGE_ROOT="$top"
    . "$top/scripts/release-flags.sh"
    "$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
    ICAL="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/ical"
fi
"$SWIFT" build -c release --package-path "$here" --product ical-generate >&2
GENERATE="$("$SWIFT" build -c release --package-path "$here" --show-bin-path)/ical-generate"
mkdir -p "$here/.build" "$here/work"
TIMED="$here/.build/run-timed"
SERIES_C="$here/.build/libical-series"
"$CC" -O2 -Wall -o "$TIMED" "$here/c/run-timed.c"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$SERIES_C" "$here/c/libical-series.c" $(pkg-config --cflags --libs libical)

# recurring-ical-events in work/venv (bench-only), as run.sh installs it.
VENV="$here/work/venv"
peer_note=""
if [ "$PYTHON_ENABLED" != 1 ]; then
    peer_note="recurring-ical-events skipped: BENCH_PYTHON=0."
elif ! "$VENV/bin/python" -c 'import recurring_ical_events' >/dev/null 2>&1; then
    say "expansion-query: installing recurring-ical-events (bench-only) into work/venv"
    if ! { [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" >&2; } ||
       ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check recurring-ical-events >&2 ||
       ! "$VENV/bin/python" -c 'import recurring_ical_events' >/dev/null 2>&1; then
        peer_note="recurring-ical-events skipped: pip could not install it into work/venv."
    fi
fi
[ -n "$peer_note" ] && say "expansion-query: $peer_note"

generator_hash=$(cat "$here"/Sources/ical-generate/*.swift | cksum | cut -d' ' -f1)
file="$here/work/series-$SERIES-seed$SEED-$generator_hash.ics"
if [ ! -f "$file" ]; then
    say "expansion-query: generating $SERIES series"
    "$GENERATE" --series "$SERIES" --seed "$SEED" -o "$file.tmp"
    mv "$file.tmp" "$file"
fi

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

# timed NAME COMMAND...: one whole-process measurement appended to $raw/NAME.
timed() {
    name=$1
    shift
    sync
    if line=$("$TIMED" "$raw/$name.out" "$@" 2>"$raw/$name.err"); then
        printf '%s\n' "$line" >>"$raw/$name"
    else
        say "expansion-query: $name failed (see $raw/$name.err)"
        cat "$raw/$name.err" >&2
        exit 1
    fi
}

# median NAME KEY
median() {
    tr ' ' '\n' <"$raw/$1" | sed -n "s/^$2=//p" | sort -n | awk '
        { v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for round in $(seq 1 "$RUNS"); do
    say "expansion-query: round $round of $RUNS"
    timed libical "$SERIES_C" "$file" "$window_start" "$window_end"
    for format in json text csv ics; do
        timed "$format" "$ICAL" query --between "$FROM" "$TO" --format "$format" "$file"
    done
done
if [ -z "$peer_note" ]; then
    say "expansion-query: recurring-ical-events (one run)"
    timed recurring "$VENV/bin/python" "$here/python/recurring_series.py" "$file" "$window_start" "$window_end"
fi

# The occurrences each contender listed: by counting its output, and as sorted "UID start"
# lines (start as local time to the second) compared between all three.
count() {
    case $1 in
        json) grep -c '^  {"uid"' "$raw/json.out" || true ;;
        text) grep -c '^  ' "$raw/text.out" || true ;;
        csv) echo $(($(wc -l <"$raw/csv.out") - 1)) ;;
        ics) grep -c '^BEGIN:VEVENT' "$raw/ics.out" || true ;;
        libical | recurring) sed -n 's/.*occurrences=\([0-9]*\).*/\1/p' "$raw/$1.err" ;;
    esac
}
"$PYTHON" - "$raw/csv.out" >"$raw/ical.keys" <<'PY'
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as handle:
    rows = csv.reader(handle)
    next(rows)
    keys = sorted(f"{row[0]} {row[3][:19]}" for row in rows)
sys.stdout.write("".join(key + "\n" for key in keys))
PY
cut -d' ' -f1,2 "$raw/libical.out" | sort >"$raw/libical.keys"
LC_ALL=C.UTF-8 sort -o "$raw/ical.keys" "$raw/ical.keys"
agreement="ical query and libical list the same occurrences (UID and start)"
if ! cmp -s "$raw/ical.keys" "$raw/libical.keys"; then
    say "expansion-query: ical query and libical differ:"
    diff "$raw/ical.keys" "$raw/libical.keys" | head -20 >&2
    exit 1
fi
if [ -z "$peer_note" ]; then
    # recurring-ical-events prints offsets and dates as isoformat: the first 19 characters.
    awk '{ print $1, substr($2, 1, 19) }' "$raw/recurring.out" | sort >"$raw/recurring.keys"
    if ! cmp -s "$raw/ical.keys" "$raw/recurring.keys"; then
        say "expansion-query: ical query and recurring-ical-events differ:"
        diff "$raw/ical.keys" "$raw/recurring.keys" | head -20 >&2
        exit 1
    fi
    agreement="ical query, libical and recurring-ical-events list the same occurrences (UID and start)"
fi
for format in text csv ics; do
    [ "$(count "$format")" = "$(count json)" ] || { say "expansion-query: $format lists $(count "$format"), json $(count json)"; exit 1; }
done

libical_wall=$(median libical wall_ms)
libical_peak=$(median libical peak_rss_kib)
{
    echo "# A query that is mostly expansion (issue 19)"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "- Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
    echo "- $("$SWIFT" --version 2>/dev/null | head -1 | sed 's/ (.*//') (release build), libical $(pkg-config --modversion libical)"
    echo "- Load average (1 min) after measuring: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
    echo "- File: \`ical-generate --series $SERIES --seed $SEED\` ($(($(wc -c <"$file") / 1024)) KiB); window $FROM to $TO (UTC, ten years)"
    echo "- $RUNS rounds of ical and libical, medians${peer_note:+ ($peer_note)}${peer_note:-; recurring-ical-events once}"
    echo "- $agreement: $(count json) occurrences"
    echo
    echo "Whole processes (fork to exit, \`c/run-timed.c\`), output to a file through standard output."
    echo "**CPU** is user + system. Goal: every format at or below libical's time; memory bounded by"
    echo "the number of series, not of occurrences."
    echo
    echo "| contender | wall ms | CPU ms | peak MB | occurrences | time × libical | memory × libical | goal |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    for name in libical json text csv ics recurring; do
        [ -f "$raw/$name" ] || continue
        wall=$(median "$name" wall_ms)
        cpu=$(awk -v u="$(median "$name" user_ms)" -v s="$(median "$name" sys_ms)" 'BEGIN { printf "%.0f", u + s }')
        peak_kib=$(median "$name" peak_rss_kib)
        peak=$(awk -v k="$peak_kib" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')
        time_ratio=$(awk -v a="$wall" -v b="$libical_wall" 'BEGIN { printf "%.2f", a / b }')
        memory_ratio=$(awk -v a="$peak_kib" -v b="$libical_peak" 'BEGIN { printf "%.2f", a / b }')
        case $name in
            libical) figure='libical iterator, C driver (`c/libical-series.c`)'; goal=- ;;
            recurring) figure='recurring-ical-events (`python/recurring_series.py`)'; goal=- ;;
            *) figure="\`ical query --format $name\`"
               goal=$(awk -v a="$wall" -v b="$libical_wall" 'BEGIN { print (a <= b) ? "PASS" : "MISS" }') ;;
        esac
        echo "| $figure | $wall | $cpu | $peak | $(count "$name") | $time_ratio | $memory_ratio | $goal |"
    done
    [ -n "$peer_note" ] && echo && echo "- $peer_note"
    true
} >"$RESULTS"
cat "$RESULTS"
