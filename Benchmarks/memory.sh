#!/bin/sh
# Peak memory of `ical import` and `ical convert` (issue 15): each a whole process, measured
# by c/run-timed.c (the child's ru_maxrss), beside raw libical's parse and write of the same
# generated file (c/libical-parse.c) in the same run. See "Import and convert memory" in
# Benchmarks/README.md.
#
#   sh Benchmarks/memory.sh         (also a step of Benchmarks/run.sh; BENCH_MEMORY=0 skips it there)
#
# For each size: `ical import FILE` into an empty store (full access granted first,
# untimed), `ical convert FILE --to jcal -o OUT` and `ical convert FILE -o OUT` (ics), and
# libical-parse FILE. Printed: peak RSS in MB (10^6 bytes), its ratio to libical's, and the
# growth exponent between consecutive sizes, log(peak2 / peak1) / log(events2 / events1):
# 1 is linear in the file, 0 is flat.
#
# Environment:
#   BENCH_MEMORY_SIZES    event counts                  (default "10000 100000 300000")
#   BENCH_MEMORY_BEFORE   another `ical` binary measured beside this one (rows "… (before)")
#   BENCH_MEMORY_RESULTS  the Markdown table            (default Benchmarks/results/memory-latest.md)
#   BENCH_SEED            generator seed                (default 42)
#   SWIFT, CC
#
# Target (issue 15): import and convert of 100,000 events at most 300 MB, growing less than
# linearly with the file. A MISS is printed and never fails the run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$here"

SIZES=${BENCH_MEMORY_SIZES:-"10000 100000 300000"}
BEFORE=${BENCH_MEMORY_BEFORE:-}
SEED=${BENCH_SEED:-42}
RESULTS=${BENCH_MEMORY_RESULTS:-"$here/results/memory-latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
TZ=UTC
export TZ
TARGET_PEAK_MB=300
TARGET_SIZE=100000

say() { printf '%s\n' "$*" >&2; }

# MARK: Build

say "memory: building ical (release) at the top, ical-generate here"
ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
ICAL="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/ical"
"$SWIFT" build -c release --package-path "$here" --product ical-generate >&2
BIN=$("$SWIFT" build -c release --package-path "$here" --show-bin-path)
mkdir -p "$here/.build" "$here/work"
TIMED="$here/.build/run-timed"
"$CC" -O2 -Wall -o "$TIMED" "$here/c/run-timed.c"
LIBICAL_PARSE="$here/.build/libical-parse"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$LIBICAL_PARSE" "$here/c/libical-parse.c" $(pkg-config --cflags --libs libical)

# The same files as Benchmarks/run.sh (named by the generator's sources).
generator_hash=$(cat "$here"/Sources/ical-generate/*.swift | cksum | cut -d' ' -f1)
calendar_file() {
    file="$here/work/events-$1-seed$SEED-$generator_hash.ics"
    if [ ! -f "$file" ]; then
        say "memory: generating $1 events"
        "$BIN/ical-generate" --events "$1" --seed "$SEED" -o "$file.tmp"
        mv "$file.tmp" "$file"
    fi
    printf '%s\n' "$file"
}

scratch="$here/work/memory"
rm -rf "$scratch"
mkdir -p "$scratch"
measurements="$scratch/measurements"
: >"$measurements"

# measure SIZE NAME COMMAND...: one process through run-timed; its line kept as
# "SIZE NAME key=value ...".
measure() {
    size=$1 name=$2
    shift 2
    sync
    if line=$("$TIMED" "$scratch/stdout" "$@" 2>"$scratch/stderr"); then
        printf '%s %s %s\n' "$size" "$name" "$line" >>"$measurements"
    else
        say "memory: $name at $size events failed: $(tail -n 3 "$scratch/stderr")"
        printf '%s %s failed\n' "$size" "$name" >>"$measurements"
    fi
}

# run_ical SIZE LABEL ICAL FILE: import into an empty store, convert to jCal and to ics.
run_ical() {
    size=$1 label=$2 ical=$3 file=$4
    store="$scratch/store-$size"
    rm -rf "$store"
    OPENEVENTKIT_STORE="$store" "$ical" privacy grant org.openeventkit.ical --events full --reminders full >/dev/null
    say "memory: $label import of $size events"
    measure "$size" "import$label" env OPENEVENTKIT_STORE="$store" "$ical" import "$file"
    rm -rf "$store"
    say "memory: $label convert of $size events"
    measure "$size" "jcal$label" "$ical" convert "$file" --to jcal -o "$scratch/out.json"
    measure "$size" "ics$label" "$ical" convert "$file" -o "$scratch/out.ics"
    rm -f "$scratch/out.json" "$scratch/out.ics"
}

for size in $SIZES; do
    file=$(calendar_file "$size")
    say "memory: libical parse of $size events"
    measure "$size" libical "$LIBICAL_PARSE" "$file"
    run_ical "$size" "" "$ICAL" "$file"
    if [ -n "$BEFORE" ]; then run_ical "$size" "-before" "$BEFORE" "$file"; fi
    wc -c <"$file" | awk -v size="$size" '{ print size, "file", "bytes=" $1 }' >>"$measurements"
done

# field SIZE NAME KEY
field() {
    awk -v size="$1" -v name="$2" -v key="$3" '
        $1 == size && $2 == name { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) { print kv[2]; exit } } }
    ' "$measurements"
}

rows() {
    names="import jcal ics"
    [ -n "$BEFORE" ] && names="import import-before jcal jcal-before ics ics-before"
    for name in $names; do
        previous_size="" previous_peak=""
        for size in $SIZES; do
            peak=$(field "$size" "$name" peak_rss_kib)
            base=$(field "$size" libical peak_rss_kib)
            wall=$(field "$size" "$name" wall_ms)
            bytes=$(field "$size" file bytes)
            awk -v size="$size" -v name="$name" -v peak="$peak" -v base="$base" -v wall="$wall" -v bytes="$bytes" \
                -v psize="$previous_size" -v ppeak="$previous_peak" -v target="$TARGET_PEAK_MB" -v tsize="$TARGET_SIZE" '
                function num(x) { return x ~ /^[0-9.]+$/ }
                BEGIN {
                    label = name; sub(/^jcal/, "convert --to jcal", label); sub(/^ics/, "convert (ics)", label)
                    sub(/-before$/, " (before)", label)
                    if (!num(peak)) { printf "| %d | %s | - | failed | - | - | - | - |\n", size, label; exit }
                    mb = peak * 1024 / 1e6
                    ratio = num(base) ? sprintf("%.2f", peak / base) : "-"
                    growth = "-"
                    if (num(ppeak) && psize > 0) { g = log(peak / ppeak) / log(size / psize); growth = sprintf("%.2f", (g < 0.005 && g > -0.005) ? 0 : g) }
                    verdict = "-"
                    if (size == tsize && name !~ /before/) verdict = (mb <= target ? "ok" : "MISS") " (<= " target " MB)"
                    printf "| %d | %s | %.1f | %.1f | %s | %s | %.0f | %s |\n", size, label, bytes / 1e6, mb, ratio, growth, wall, verdict
                }'
            previous_size=$size previous_peak=$peak
        done
    done
    for size in $SIZES; do
        peak=$(field "$size" libical peak_rss_kib)
        bytes=$(field "$size" file bytes)
        awk -v size="$size" -v peak="$peak" -v bytes="$bytes" \
            'BEGIN { printf "| %d | libical parse and write (floor) | %.1f | %.1f | 1.00 | - | - | - |\n", size, bytes / 1e6, peak * 1024 / 1e6 }'
    done
}

report() {
    echo "# Import and convert memory (issue 15)"
    echo
    echo "Measured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(nproc) cores; \`sh Benchmarks/memory.sh\` (sizes: $SIZES)."
    echo "Peak RSS of each whole process (\`c/run-timed.c\`, ru_maxrss) in MB of 10^6 bytes; \"× libical\" is the"
    echo "ratio to raw libical parsing and writing the same file (\`c/libical-parse.c\`) in the same run;"
    echo "\"growth\" is log(peak / previous peak) / log(events / previous events): 1 is linear in the file."
    echo "Target: import and convert of $TARGET_SIZE events at most $TARGET_PEAK_MB MB, growing less than linearly."
    echo
    echo "| events | what | file MB | peak MB | × libical | growth | wall ms | target |"
    echo "|---:|---|---:|---:|---:|---:|---:|---|"
    rows
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "memory: table written to $RESULTS"
rm -rf "$scratch"
