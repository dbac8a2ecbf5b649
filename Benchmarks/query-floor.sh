#!/bin/sh
# Speed II (issue 15): a warm month query of a dense store against its floors, in one run.
# See "Warm queries at the floor" in Benchmarks/README.md.
#
#   sh Benchmarks/query-floor.sh      (also a step of Benchmarks/run.sh; BENCH_FLOOR=0 skips it there)
#
# For each size: a generated calendar whose DTSTARTs fall in 2025-2026 (`ical-generate
# --years 2025-2026`: at 100,000 events March 2026 holds about 22,000 occurrences), imported
# into a store of its own, and one query of the month to build the index and fill the
# occurrence cache (untimed). Then rounds of, interleaved: the process floor (`ical
# --version`), a bare SQLite read of the month's cached rows (c/sqlite-month.c: the rows'
# blobs to standard output, no sorting, no formatting), and the warm `ical query` of the
# month as JSON, text and CSV, each written to a file through standard output.
#
# Environment:
#   BENCH_FLOOR_SIZES   event counts          (default "1000 100000")
#   BENCH_FLOOR_RUNS    rounds; medians shown (default BENCH_RUNS, else 10)
#   BENCH_FLOOR_RESULTS the Markdown table    (default Benchmarks/results/query-floor-latest.md)
#   BENCH_FLOOR_KHAL_RUNS rounds of warm khal (default 3, and 1 at 100,000+ events, where
#                       one takes about two minutes)
#   BENCH_KHAL          0 skips khal          (default 1)
#   BENCH_SEED          generator seed        (default 42)
#   SWIFT, CC, PYTHON
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$here"

SIZES=${BENCH_FLOOR_SIZES:-"1000 100000"}
RUNS=${BENCH_FLOOR_RUNS:-${BENCH_RUNS:-10}}
RESULTS=${BENCH_FLOOR_RESULTS:-"$here/results/query-floor-latest.md"}
SEED=${BENCH_SEED:-42}
KHAL_RUNS=${BENCH_FLOOR_KHAL_RUNS:-}
KHAL_ENABLED=${BENCH_KHAL:-1}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
MONTH=2026-03
TZ=UTC
export TZ
month_start=$(date -u -d "$MONTH-01" +%s)
month_end=$(date -u -d "$MONTH-01 +1 month" +%s)
month_first="$MONTH-01"
month_last=$(date -u -d "$MONTH-01 +1 month -1 day" +%Y-%m-%d)   # khal's END date is inclusive

say() { printf '%s\n' "$*" >&2; }

say "query-floor: building ical (release) at the top, ical-generate here, the C helpers"
ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
ICAL="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/ical"
"$SWIFT" build -c release --package-path "$here" --product ical-generate >&2
GENERATE="$("$SWIFT" build -c release --package-path "$here" --show-bin-path)/ical-generate"
mkdir -p "$here/.build" "$here/work"
TIMED="$here/.build/run-timed"
SQLITE_MONTH="$here/.build/sqlite-month"
"$CC" -O2 -Wall -o "$TIMED" "$here/c/run-timed.c"
"$CC" -O2 -Wall -o "$SQLITE_MONTH" "$here/c/sqlite-month.c" -lsqlite3

. "$here/khal.sh"
khal_install query-floor

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

# timed NAME SIZE COMMAND...: one whole-process measurement appended to $raw/SIZE-NAME.
timed() {
    name=$1 size=$2
    shift 2
    sync
    if line=$("$TIMED" "$raw/$size-$name.out" "$@" 2>>"$raw/$size-$name.err"); then
        printf '%s\n' "$line" >>"$raw/$size-$name"
    else
        say "query-floor: $name failed on $size events (see $raw/$size-$name.err)"
        exit 1
    fi
}

# median SIZE NAME KEY
median() {
    tr ' ' '\n' <"$raw/$1-$2" | sed -n "s/^$3=//p" | sort -n | awk '
        { v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for size in $SIZES; do
    file="$here/work/dense-$size.ics"
    store="$here/work/store-dense-$size"
    if [ ! -f "$file" ]; then
        say "query-floor: generating $size events (2025-2026)"
        "$GENERATE" --events "$size" --seed "$SEED" --years 2025-2026 -o "$file"
    fi
    if [ ! -f "$store/.openeventkit/index.sqlite" ] || [ "$file" -nt "$store" ]; then
        say "query-floor: importing $size events into $store"
        rm -rf "$store"
        "$ICAL" privacy grant org.openeventkit.ical --events full --reminders full --store "$store" >/dev/null
        "$ICAL" import "$file" --store "$store" >/dev/null
        # The index trusts a collection folder's times only once they are two seconds old
        # when it lists the folder ("settled", see QueryIndex.md); a query within two
        # seconds of the import lists the folder's files again, and so would every round
        # of a small store. Wait, so that the untimed query below records them settled.
        sleep 3
    fi
    # The index and the month's cache (untimed); khal's cache of the same events (untimed).
    "$ICAL" query --at "$MONTH" --tz UTC --format json --store "$store" >"$raw/$size-first.json"
    if khal_ok; then
        khal_config=$(khal_write_config "$here/work/khal-dense-$size" "$store/calendar")
        if [ ! -f "$here/work/khal-dense-$size/cache.db" ] || [ "$store/calendar" -nt "$here/work/khal-dense-$size/cache.db" ]; then
            say "query-floor: khal builds its cache of $size events (untimed)"
            rm -f "$here/work/khal-dense-$size/cache.db"*
        fi
        "$KHAL" -c "$khal_config" list --day-format "" --format "{uid}|{start-long}" "$month_first" "$month_last" >/dev/null
    fi
    for round in $(seq 1 "$RUNS"); do
        say "query-floor: $size events: round $round of $RUNS"
        timed floor "$size" "$ICAL" --version
        timed sqlite "$size" "$SQLITE_MONTH" "$store/.openeventkit/index.sqlite" "$month_start" "$month_end"
        for format in json text csv; do
            timed "$format" "$size" "$ICAL" query --at "$MONTH" --tz UTC --format "$format" --store "$store"
        done
        khal_runs=${KHAL_RUNS:-3}
        [ -z "$KHAL_RUNS" ] && [ "$size" -ge 100000 ] && khal_runs=1
        if khal_ok && [ "$round" -le "$khal_runs" ]; then
            timed khal "$size" "$KHAL" -c "$khal_config" list --day-format "" --format "{uid}|{start-long}" "$month_first" "$month_last"
        fi
    done
    cmp -s "$raw/$size-first.json" "$raw/$size-json.out" || { say "query-floor: warm JSON differs from the first query's"; exit 1; }
done

{
    echo "# Warm queries at the floor (issue 15)"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "- Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
    echo "- $("$SWIFT" --version 2>/dev/null | head -1 | sed 's/ (.*//') (release build), SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '?')"
    echo "- Load average (1 min) after measuring: $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
    echo "- Month $MONTH (UTC), stores from \`ical-generate --years 2025-2026\`, seed $SEED; $RUNS rounds, medians"
    echo
    echo "Whole processes (fork to exit, \`c/run-timed.c\`), output to a file through standard output."
    echo "**× floor** is the figure over \`ical --version\` of the same rounds; **CPU** is user + system."
    echo
    echo "| events | occurrences in the month | figure | wall ms | CPU ms | peak MB | × floor | target | result |"
    echo "|---:|---:|---|---:|---:|---:|---:|---|---|"
    for size in $SIZES; do
        occurrences=$(grep -c '^  {"uid"' "$raw/$size-json.out" || true)
        floor=$(median "$size" floor wall_ms)
        names="floor sqlite json text csv"
        khal_ok && names="$names khal"
        for name in $names; do
            wall=$(median "$size" "$name" wall_ms)
            cpu=$(awk -v u="$(median "$size" "$name" user_ms)" -v s="$(median "$size" "$name" sys_ms)" 'BEGIN { printf "%.1f", u + s }')
            peak=$(awk -v k="$(median "$size" "$name" peak_rss_kib)" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')
            ratio=$(awk -v a="$wall" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')
            case $name in
                floor) figure='process floor: `ical --version`'; target=-; result=- ;;
                sqlite) figure='bare SQLite read of the cached rows (`c/sqlite-month.c`)'; target=-; result=- ;;
                khal) figure="warm \`khal list\` of the month (its cache built; $(wc -l <"$raw/$size-khal.out") lines)"; target=-
                      result=$(awk -v k="$wall" -v j="$(median "$size" json wall_ms)" 'BEGIN { printf "%.0fx the JSON query", k / j }') ;;
                *) figure="warm \`ical query --format $name\`"
                   limit=15; [ "$size" -le 1000 ] && limit=8
                   target="≤ $limit ms"
                   result=$(awk -v a="$wall" -v l="$limit" 'BEGIN { print (a <= l) ? "PASS" : "MISS" }') ;;
            esac
            echo "| $size | $occurrences | $figure | $wall | $cpu | $peak | $ratio | $target | $result |"
        done
    done
    khal_ok || { echo; echo "$khal_note"; }
} >"$RESULTS"
cat "$RESULTS"
