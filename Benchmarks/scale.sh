#!/bin/sh
# Scale ("a million events"): wall time and peak memory of `ical import`, the
# first and the second month query on the imported store, the month query of the file
# itself and `ical convert --to jcal`, at 10^4, 10^5 and 10^6 generated events, with how
# each grows per 10x of events and its ratio to raw libical parsing and writing the same
# file (c/libical-parse.c) in the same run. See "Scale" in Benchmarks/README.md.
#
#   sh Benchmarks/scale.sh          (also a step of Benchmarks/run.sh; BENCH_SCALE=0 skips it there)
#   BENCH_SCALE_SIZES="10000 100000" sh Benchmarks/scale.sh     (without the million)
#
# Every step is one process timed by c/run-timed.c (fork to exit; user and system CPU; the
# child's ru_maxrss), started under `timeout` and an address-space limit (`ulimit -v`). A
# step that fails, is refused (an input over a limit of `ical`'s), runs out of memory or
# time, is a row of the table with its status and message; the run goes on.
#
# Environment:
#   BENCH_SCALE_SIZES     event counts                          (default "10000 100000 1000000")
#   BENCH_SCALE_TIMEOUT   seconds after which a step is stopped (default 1200)
#   BENCH_SCALE_MEMORY    address-space limit per step, MiB; 0: none (default 16384, of the
#                         machine's memory; libical's tree of 10^6 events takes about 9 GiB)
#   BENCH_SCALE_MONTH     the month queried                     (default 2026-03, UTC)
#   BENCH_SCALE_ICAL      an `ical` binary to measure instead of the release build at the top
#   BENCH_SCALE_RESULTS   the Markdown table                    (default Benchmarks/results/scale-latest.md)
#   BENCH_SEED            generator seed                        (default 42)
#   SWIFT, CC
#
# Files: the generated calendars are cached in work/ under the names run.sh gives them
# (events-N-seedS-HASH.ics; 676 MB at 10^6 events) and kept; stores, query output and
# converted files go to work/scale/, removed at the end of the run (also when it stops).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$here"

SIZES=${BENCH_SCALE_SIZES:-"10000 100000 1000000"}
TIMEOUT=${BENCH_SCALE_TIMEOUT:-1200}
MEMORY_MIB=${BENCH_SCALE_MEMORY:-16384}
MONTH=${BENCH_SCALE_MONTH:-2026-03}
SEED=${BENCH_SEED:-42}
RESULTS=${BENCH_SCALE_RESULTS:-"$here/results/scale-latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
TZ=UTC
LC_ALL=C.UTF-8
export TZ LC_ALL

say() { printf '%s\n' "$*" >&2; }

# MARK: Build

say "scale: building ical (release) at the top, ical-generate here, the C helpers"
if [ -n "${BENCH_SCALE_ICAL:-}" ]; then
    ICAL=$BENCH_SCALE_ICAL
else
    # shellcheck disable=SC2034  # read by release-flags.sh
    ICAL_PACKAGE_ROOT="$top"
    # shellcheck disable=SC1091
    . "$top/scripts/release-flags.sh"
    # shellcheck disable=SC2086
    "$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
    ICAL="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/ical"
fi
"$SWIFT" build -c release --package-path "$here" --product ical-generate >&2
GENERATE="$("$SWIFT" build -c release --package-path "$here" --show-bin-path)/ical-generate"
mkdir -p "$here/.build" "$here/work"
TIMED="$here/.build/run-timed"
"$CC" -O2 -Wall -o "$TIMED" "$here/c/run-timed.c"
LIBICAL_PARSE="$here/.build/libical-parse"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$LIBICAL_PARSE" "$here/c/libical-parse.c" $(pkg-config --cflags --libs libical)

# MARK: Files

# The same generated calendars as run.sh, memory.sh and store.sh (named by the generator's sources).
generator_hash=$(cat "$here"/Sources/ical-generate/*.swift | cksum | cut -d' ' -f1)
calendar_file() {
    file="$here/work/events-$1-seed$SEED-$generator_hash.ics"
    if [ ! -f "$file" ]; then
        say "scale: generating $1 events"
        "$GENERATE" --events "$1" --seed "$SEED" -o "$file.tmp" >&2 || { rm -f "$file.tmp"; return 1; }
        mv "$file.tmp" "$file"
    fi
    printf '%s\n' "$file"
}

scratch="$here/work/scale"
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
measurements="$scratch/measurements"
: >"$measurements"

# Never the user's store or settings: every `ical` runs with a home, XDG folders and
# OPENEVENTKIT_STORE of its own under work/scale/.
HOME="$scratch/home"
XDG_DATA_HOME="$HOME/.local/share"
XDG_CONFIG_HOME="$HOME/.config"
XDG_CACHE_HOME="$HOME/.cache"
XDG_STATE_HOME="$HOME/.local/state"
XDG_RUNTIME_DIR="$scratch/runtime"
OPENEVENTKIT_STORE="$scratch/no-store"
export HOME XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR OPENEVENTKIT_STORE
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# MARK: Measuring

memory_kib=$((MEMORY_MIB * 1024))

# one_line TEXT: TEXT on one line, at most 200 characters, without the table's "|".
one_line() { printf '%s' "$1" | tr '\n|' '  ' | sed 's/  */ /g; s/^ //; s/ $//' | cut -c1-200; }

# step SIZE NAME COMMAND...: one process through run-timed, under the time and memory
# limits; its line kept as "SIZE NAME status=… key=value …" and its message (the last
# lines of its standard error) as "SIZE NAME message=…" in the measurements.
step() {
    size=$1 name=$2
    shift 2
    sync
    out="$scratch/$size-$name.out" err="$scratch/$size-$name.err"
    say "scale: $size events: $name"
    # shellcheck disable=SC2016  # the inner shell expands them
    line=$("$TIMED" "$out" sh -c '
        [ "$1" = 0 ] || ulimit -v "$1" || exit 125
        t=$2; shift 2
        exec timeout -k 30 "$t" "$@"' limited "$memory_kib" "$TIMEOUT" "$@" 2>"$err") || true
    code=$(printf '%s' "$line" | tr ' ' '\n' | sed -n 's/^exit=//p')
    wall=$(printf '%s' "$line" | tr ' ' '\n' | sed -n 's/^wall_ms=//p')
    message=$(tail -n 3 "$err" 2>/dev/null || true)
    if [ -z "$code" ]; then
        status=failed message="run-timed: ${message:-no output}"
    elif [ "$code" = 0 ]; then
        status=ok message=""
    elif [ "$code" = 124 ] || { [ "$code" = 137 ] && awk -v w="$wall" -v t="$TIMEOUT" 'BEGIN { exit !(w >= t * 1000) }'; }; then
        status=timeout message="stopped after $TIMEOUT s (BENCH_SCALE_TIMEOUT)"
    elif printf '%s' "$message" | grep -q 'more than the limit\|limitExceeded\|too large'; then
        status=refused
    elif [ "$MEMORY_MIB" != 0 ] && printf '%s' "$message" | grep -qi 'out of memory\|cannot allocate\|bad_alloc\|allocation'; then
        status=out-of-memory message="$message (limit $MEMORY_MIB MiB, BENCH_SCALE_MEMORY)"
    elif [ "$code" -gt 128 ]; then
        status=crashed message="signal $((code - 128))${message:+: $message}"
        [ "$MEMORY_MIB" != 0 ] && message="$message (address space limited to $MEMORY_MIB MiB, BENCH_SCALE_MEMORY)"
    else
        status=failed message="exit $code${message:+: $message}"
        [ "$MEMORY_MIB" != 0 ] && [ ! -s "$err" ] &&
            message="$message (address space limited to $MEMORY_MIB MiB, BENCH_SCALE_MEMORY)"
    fi
    printf '%s %s status=%s %s\n' "$size" "$name" "$status" "$line" >>"$measurements"
    [ -n "$message" ] && printf '%s %s message=%s\n' "$size" "$name" "$(one_line "$message")" >>"$measurements"
    [ "$status" = ok ] || say "scale: $size events: $name: $status: $(one_line "$message")"
    [ "$status" = ok ]
}

# skip SIZE NAME WHY: a row for a step that was not run.
skip() {
    printf '%s %s status=skipped\n%s %s message=%s\n' "$1" "$2" "$1" "$2" "$3" >>"$measurements"
}

# note SIZE KEY VALUE: a figure about the size (file bytes, occurrences).
note() { printf '%s %s %s\n' "$1" "$2" "$3" >>"$measurements"; }

occurrences() { grep -c '"uid":' "$1" 2>/dev/null || true; }

remove_index() { rm -f "$1/.openeventkit/index.sqlite" "$1/.openeventkit/index.sqlite-wal" "$1/.openeventkit/index.sqlite-shm"; }

load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
started=$(date +%s)

for size in $SIZES; do
    steps="libical import query-cold query-warm query-file convert"
    if ! file=$(calendar_file "$size"); then
        for name in $steps; do skip "$size" "$name" "ical-generate could not write the file"; done
        continue
    fi
    bytes=$(wc -c <"$file" | tr -d ' ')
    free_kib=$(df -Pk "$scratch" | awk 'NR == 2 { print $4 }')
    note "$size" file "bytes=$bytes"
    note "$size" disk "free_kib=$free_kib"
    # A store takes about 6 times the file on disk (4 KiB blocks of small item files, the
    # index); the jCal about 1.5 times. Below 8 times the file and a gigabyte free, no import.
    room=$(awk -v b="$bytes" -v k="$free_kib" 'BEGIN { print (k * 1024 >= 8 * b + 1e9) ? "yes" : "no" }')

    # The floor: raw libical reads, parses and writes the file (its line in the .out).
    if step "$size" libical "$LIBICAL_PARSE" "$file"; then
        note "$size" libical-inside "$(cat "$scratch/$size-libical.out")"
    fi
    rm -f "$scratch/$size-libical.out"

    # Import into an empty store (full access granted first, not timed), then the month
    # query twice: the first builds the query index (any index the import left is removed
    # first), the second finds it.
    store="$scratch/store-$size"
    rm -rf "$store"
    if [ "$room" != yes ]; then
        why=$(awk -v b="$bytes" -v k="$free_kib" 'BEGIN { printf "only %.1f GB free in work/, a store takes about 6x the file (%.0f MB)", k * 1024 / 1e9, b / 1e6 }')
        skip "$size" import "$why"
        skip "$size" query-cold "no store: $why"
        skip "$size" query-warm "no store: $why"
    elif ! "$ICAL" privacy grant org.openeventkit.ical --events full --reminders full --store "$store" >"$scratch/grant.err" 2>&1; then
        skip "$size" import "could not grant access: $(one_line "$(cat "$scratch/grant.err")")"
        skip "$size" query-cold "no store"
        skip "$size" query-warm "no store"
    elif step "$size" import env OPENEVENTKIT_STORE="$store" "$ICAL" import "$file" --store "$store"; then
        note "$size" store "store_kib=$(du -sk "$store" | cut -f1) items=$(find "$store" -name '*.ics' | wc -l | tr -d ' ')"
        remove_index "$store"
        # The index trusts a folder's times only once they are more than two seconds old
        # (StoreIndex's "settled"); a query sooner after the import lists every item again on
        # the next run. Waiting makes the second query the warm one users see.
        sleep 3
        if step "$size" query-cold "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json --store "$store"; then
            note "$size" query-cold "occurrences=$(occurrences "$scratch/$size-query-cold.out")"
            if step "$size" query-warm "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json --store "$store"; then
                note "$size" query-warm "occurrences=$(occurrences "$scratch/$size-query-warm.out")"
            fi
        else
            skip "$size" query-warm "the first query was $status"
        fi
    else
        skip "$size" query-cold "no store: the import was $status"
        skip "$size" query-warm "no store: the import was $status"
    fi
    # The store stays until the end of the run (removed with work/scale/): ext4 creates files
    # slowly right after many were deleted, which would land on the next size's import.
    rm -f "$scratch/$size"-*.out

    # The same month from the file itself, and the file converted to jCal.
    if step "$size" query-file "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json "$file"; then
        note "$size" query-file "occurrences=$(occurrences "$scratch/$size-query-file.out")"
    fi
    rm -f "$scratch/$size-query-file.out"
    if step "$size" convert "$ICAL" convert "$file" --to jcal -o "$scratch/out.json"; then
        note "$size" convert "jcal_bytes=$(wc -c <"$scratch/out.json" | tr -d ' ')"
    fi
    rm -f "$scratch/out.json" "$scratch/$size"-*.out
done

load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
minutes=$(( ($(date +%s) - started + 59) / 60 ))

# MARK: Report

# field SIZE NAME KEY: KEY of the line of NAME at SIZE, or "-".
field() {
    awk -v size="$1" -v name="$2" -v key="$3" '
        $1 == size && $2 == name {
            for (i = 3; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == key) { print substr($i, n + 1); found = 1; exit } }
        }
        END { if (!found) print "-" }' "$measurements"
}
message_of() {
    awk -v size="$1" -v name="$2" '$1 == size && $2 == name && $3 ~ /^message=/ { sub(/^[^ ]+ [^ ]+ message=/, ""); print; exit }' "$measurements"
}

label_of() {
    case $1 in
        libical) echo "raw libical (C): read, parse, write (\`c/libical-parse.c\`, the floor)" ;;
        import) echo "\`ical import FILE\` into an empty store" ;;
        query-cold) echo "month query of the store, first (builds the index)" ;;
        query-warm) echo "month query of the store, second (warm index)" ;;
        query-file) echo "month query of the file (\`ical query FILE\`)" ;;
        convert) echo "\`ical convert FILE --to jcal -o OUT\`" ;;
    esac
}

rows() {
    for name in libical import query-cold query-warm query-file convert; do
        previous_size="" previous_wall="" previous_peak=""
        for size in $SIZES; do
            status=$(field "$size" "$name" status)
            wall=$(field "$size" "$name" wall_ms); user=$(field "$size" "$name" user_ms); sys=$(field "$size" "$name" sys_ms)
            peak=$(field "$size" "$name" peak_rss_kib)
            base_status=$(field "$size" libical status)
            base_wall=$(field "$size" libical wall_ms); base_peak=$(field "$size" libical peak_rss_kib)
            bytes=$(field "$size" file bytes)
            message=$(message_of "$size" "$name")
            case $name in
                query-*) extra=$(field "$size" "$name" occurrences); [ "$extra" = - ] || extra="$extra occurrences" ;;
                convert) extra=$(field "$size" convert jcal_bytes); [ "$extra" = - ] || extra=$(awk -v b="$extra" 'BEGIN { printf "%.1f MB of jCal", b / 1e6 }') ;;
                import) extra=$(field "$size" store items); [ "$extra" = - ] || extra="$extra items, $(awk -v k="$(field "$size" store store_kib)" 'BEGIN { printf "%.0f MB on disk", k * 1024 / 1e6 }')" ;;
                libical)
                    extra=$(field "$size" libical-inside parse_ms)
                    [ "$extra" = - ] || extra=$(awk -v p="$extra" -v w="$(field "$size" libical-inside write_ms)" -v e="$(field "$size" libical-inside events)" \
                        'BEGIN { printf "in process: parse %.1f s, write %.1f s; %d VEVENTs", p / 1000, w / 1000, e }') ;;
            esac
            [ "$extra" = - ] && extra=""
            [ "$name" != libical ] && [ "$status" = ok ] && [ "$base_status" != ok ] && [ "$base_status" != - ] &&
                extra="${extra:+$extra; }no libical ratio: libical $base_status"
            [ -n "$message" ] && extra="${extra:+$extra; }$message"
            awk -v size="$size" -v label="$(label_of "$name")" -v status="$status" -v bytes="$bytes" \
                -v wall="$wall" -v user="$user" -v sys="$sys" -v peak="$peak" \
                -v bstatus="$base_status" -v bwall="$base_wall" -v bpeak="$base_peak" \
                -v psize="$previous_size" -v pwall="$previous_wall" -v ppeak="$previous_peak" \
                -v name="$name" -v extra="$extra" '
                function num(x) { return x ~ /^[0-9.]+$/ }
                function t(ms) { return ms >= 100000 ? sprintf("%.0f s", ms / 1000) : ms >= 1000 ? sprintf("%.1f s", ms / 1000) : sprintf("%.0f ms", ms) }
                function r(x) { return x < 0.1 ? sprintf("%.3f", x) : sprintf("%.2f", x) }
                function per10(a, b) { return sprintf("%.1fx", (a / b) ^ (1 / (log(size / psize) / log(10)))) }
                BEGIN {
                    mb = num(bytes) ? sprintf("%.1f", bytes / 1e6) : "-"
                    shown = status == "timeout" ? "timeout" : status == "ok" ? "ok" : status
                    if (status != "ok") {
                        # A step stopped or refused: what it used until then, if anything.
                        w = num(wall) && status != "skipped" ? "(" t(wall) ")" : "-"
                        c = num(user) && status != "skipped" ? "(" t(user + sys) ")" : "-"
                        p = num(peak) && status != "skipped" ? sprintf("(%.0f)", peak * 1024 / 1e6) : "-"
                        printf "| %s | %s | %s | **%s** | %s | %s | %s | - | - | - | - | %s |\n", size, mb, label, shown, w, c, p, extra
                        exit
                    }
                    tg = "-"; mg = "-"
                    if (num(pwall) && num(psize) && psize > 0 && size != psize && pwall > 0 && ppeak > 0) { tg = per10(wall, pwall); mg = per10(peak, ppeak) }
                    tr = "-"; mr = "-"
                    if (name != "libical" && bstatus == "ok" && bwall > 0 && bpeak > 0) { tr = r(wall / bwall); mr = r(peak / bpeak) }
                    if (name == "libical") { tr = "1.00"; mr = "1.00" }
                    printf "| %s | %s | %s | %s | %s | %s (sys %s) | %.0f | %s | %s | %s | %s | %s |\n",
                        size, mb, label, shown, t(wall), t(user + sys), t(sys), peak * 1024 / 1e6, tg, mg, tr, mr, extra
                }'
            if [ "$status" = ok ]; then previous_size=$size previous_wall=$wall previous_peak=$peak
            else previous_size="" previous_wall="" previous_peak=""; fi
        done
    done
}

checks() {
    for size in $SIZES; do
        cold=$(field "$size" query-cold occurrences); warm=$(field "$size" query-warm occurrences); one=$(field "$size" query-file occurrences)
        # The counts that exist, and whether they agree.
        counts=$(for c in "first store query:$cold" "second store query:$warm" "the file's query:$one"; do
            case $c in *:-) ;; *) printf '%s, ' "$c" ;; esac; done | sed 's/:/ /g; s/, $//')
        distinct=$(printf '%s\n%s\n%s\n' "$cold" "$warm" "$one" | grep -v '^-$' | sort -u | wc -l)
        if [ -n "$counts" ]; then
            if [ "$distinct" -le 1 ]; then verdict="the same"; else verdict="DIFFERENT"; fi
            echo "- $size events, month $MONTH, occurrences: $counts ($verdict)."
        fi
        free=$(field "$size" disk free_kib)
        [ "$free" != - ] && echo "- $size events: $(awk -v k="$free" 'BEGIN { printf "%.1f GB", k * 1024 / 1e9 }') free in work/ before the size was measured."
    done
    true
}

report() {
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || true)
    swift_version=$("$SWIFT" --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1)
    echo "# Scale: a million events"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), $minutes min; \`sh Benchmarks/scale.sh\` (sizes: $SIZES)"
    echo "- Machine: $(nproc) cores (${cpu:-$(uname -m)}), $memory memory, $(uname -s) $(uname -r), file system $(stat -f -c %T "$here/work" 2>/dev/null || echo unknown)"
    echo "- Swift $swift_version (release build), libical $(pkg-config --modversion libical 2>/dev/null || echo unknown); \`ical\`: ${ICAL#"$top"/} ($("$ICAL" --version 2>/dev/null | head -n 1))"
    echo "- Load average (1 min) before and after measuring: $load_before and $load_after on $(nproc) cores"
    echo "- Limits per step: $TIMEOUT s (BENCH_SCALE_TIMEOUT), address space $( [ "$MEMORY_MIB" = 0 ] && echo "unlimited" || echo "$MEMORY_MIB MiB") (BENCH_SCALE_MEMORY); month $MONTH (UTC); seed $SEED; one run of each step"
    echo
    echo "Each step is a whole process (fork to exit, \`c/run-timed.c\`): wall time, CPU (user + system,"
    echo "the system part in parentheses) and peak RSS (ru_maxrss) in MB of 10^6 bytes. \"per 10x\" is how"
    echo "much the figure grows for ten times the events, from the size above it ((b / a)^(1 / log10(events"
    echo "b / events a)): 10x is linear). \"× libical\" is the ratio to raw libical's whole process on the"
    echo "same file in the same run. A step that did not finish shows its status in bold, what it used"
    echo "until it stopped in parentheses, and its message. See \"Scale\" in Benchmarks/README.md."
    echo
    echo "| events | file MB | step | status | wall | CPU | peak MB | time per 10x | memory per 10x | time × libical | memory × libical | notes |"
    echo "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    rows
    echo
    echo "## Checks"
    echo
    checks
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "scale: removing the stores and outputs (work/scale/)"
rm -rf "$scratch"
say "scale: table written to $RESULTS"
