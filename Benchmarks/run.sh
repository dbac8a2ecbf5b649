#!/bin/sh
# Benchmarks ICalKit against raw libical (the floor) and Python's icalendar (a peer), all
# measured in the same run on the same generated files. See Benchmarks/README.md.
#
#   sh Benchmarks/run.sh            (or `make bench` from the top folder)
#
# Environment:
#   BENCH_SIZES        event counts to generate and measure   (default "1000 10000 100000")
#   BENCH_RUNS         runs per contender; medians are shown  (default 5)
#   BENCH_PYTHON_RUNS  runs of the Python peer                (default BENCH_RUNS, but 1 at 100,000+ events)
#   BENCH_PYTHON       0 skips the Python peer                (default 1)
#   BENCH_SEED         generator seed                         (default 42)
#   BENCH_RESULTS      where the Markdown table is written    (default Benchmarks/results/latest.md)
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

say() { printf '%s\n' "$*" >&2; }

# MARK: Build

say "bench: building the benchmarks (release)"
"$SWIFT" build -c release --package-path "$here" >&2
BIN=$("$SWIFT" build -c release --package-path "$here" --show-bin-path)
mkdir -p "$here/.build" "$here/work"
LIBICAL_PARSE="$here/.build/libical-parse"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$LIBICAL_PARSE" "$here/c/libical-parse.c" $(pkg-config --cflags --libs libical)

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
    while [ "$round" -le "$RUNS" ] || { python_ok && [ "$round" -le "$python_runs" ]; }; do
        say "bench: $size events, round $round"
        if [ "$round" -le "$RUNS" ]; then
            measure libical "$size" "$LIBICAL_PARSE" "$file"
            measure icalkit-read "$size" "$BIN/ical-bench" read "$file"
            measure icalkit-write "$size" "$BIN/ical-bench" write "$file"
        fi
        if python_ok && [ "$round" -le "$python_runs" ]; then
            measure icalendar "$size" "$PYTHON" "$here/python/icalendar_parse.py" "$file"
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
        for name in icalkit-read icalkit-write icalendar; do
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
    true
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "bench: table written to $RESULTS"
