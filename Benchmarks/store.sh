#!/bin/sh
# Store benchmarks (issue 8): the store and its query index measured end to end against
# khal over the same vdir folders, all in one run. See "Store benchmarks" in
# Benchmarks/README.md.
#
#   sh Benchmarks/store.sh            (also the last step of Benchmarks/run.sh; BENCH_STORE=0 skips it there)
#
# For each size: `ical import` of the generated file into an empty store (one batch, timed),
# then the query store: the same file imported in chunks of 5,000 events (one untimed
# batch of several files), its items spread over several collections; then rounds of: `ical query` cold (no index: the run builds it) and khal's first run (empty
# cache), `ical query` warm and `khal list` warm, over one month, and `store-bench query`
# (the EKEventStore library path in process, and where a query's time goes).
#
# Environment:
#   BENCH_STORE_SIZES        event counts          (default BENCH_SIZES, else "1000 10000 100000")
#   BENCH_STORE_RUNS         rounds; medians shown (default BENCH_RUNS, else 5)
#   BENCH_STORE_BIG_RUNS     at 100,000+ events: rounds of the import and of khal's first run
#                            (default 1; the cold and warm queries get min(RUNS, 3))
#   BENCH_STORE_IMPORT_TIMEOUT  seconds after which a timed import is stopped and reported as
#                            not finished (default 600: 30 times the 100,000-event target)
#   BENCH_STORE_MONTH        the month queried     (default 2026-03, UTC)
#   BENCH_STORE_COLLECTIONS  collections the items are spread over (default 4)
#   BENCH_KHAL               0 skips khal          (default 1)
#   BENCH_SEED               generator seed        (default 42)
#   BENCH_STORE_RESULTS      the Markdown table    (default Benchmarks/results/store-latest.md)
#   SWIFT, CC, PYTHON
#
# Targets are informative: a MISS is printed and never fails the run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$here"

SIZES=${BENCH_STORE_SIZES:-${BENCH_SIZES:-"1000 10000 100000"}}
RUNS=${BENCH_STORE_RUNS:-${BENCH_RUNS:-5}}
BIG_RUNS=${BENCH_STORE_BIG_RUNS:-1}
IMPORT_TIMEOUT=${BENCH_STORE_IMPORT_TIMEOUT:-600}
MONTH=${BENCH_STORE_MONTH:-2026-03}
COLLECTIONS=${BENCH_STORE_COLLECTIONS:-4}
KHAL_ENABLED=${BENCH_KHAL:-1}
SEED=${BENCH_SEED:-42}
RESULTS=${BENCH_STORE_RESULTS:-"$here/results/store-latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
# Every process reads floating times in UTC: `ical query --tz UTC`, khal's local_timezone,
# EKEventStore's default zone.
TZ=UTC
export TZ

# The issue's targets.
TARGET_IMPORT_MS=20000       # import of 100,000 events, one batch
TARGET_COLD=10               # cold query (index build) at least this many times faster than khal's first run
TARGET_WARM_MS=50            # warm month query
TARGET_WARM=30               # at least this many times faster than warm khal
TARGET_PEAK_MB=200           # peak memory of a month query, 10^6 bytes

month_first="$MONTH-01"
month_last=$(date -u -d "$MONTH-01 +1 month -1 day" +%Y-%m-%d)   # khal's END date is inclusive

say() { printf '%s\n' "$*" >&2; }

# MARK: Build

say "store: building ical and store-bench (release) at the top, ical-generate here"
ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product store-bench >&2
TOPBIN=$("$SWIFT" build -c release --package-path "$top" --show-bin-path)
ICAL="$TOPBIN/ical"
STORE_BENCH="$TOPBIN/store-bench"
"$SWIFT" build -c release --package-path "$here" --product ical-generate >&2
BIN=$("$SWIFT" build -c release --package-path "$here" --show-bin-path)
mkdir -p "$here/.build" "$here/work"
TIMED="$here/.build/run-timed"
"$CC" -O2 -Wall -o "$TIMED" "$here/c/run-timed.c"

. "$here/khal.sh"
khal_install store

# MARK: Files and stores

generator_hash=$(cat "$here"/Sources/ical-generate/*.swift | cksum | cut -d' ' -f1)

# The same generated calendars as run.sh (same names, so either script reuses them).
calendar_file() {
    file="$here/work/events-$1-seed$SEED-$generator_hash.ics"
    if [ ! -f "$file" ]; then
        say "store: generating $1 events"
        "$BIN/ical-generate" --events "$1" --seed "$SEED" -o "$file.tmp"
        mv "$file.tmp" "$file"
    fi
    printf '%s\n' "$file"
}

stores="$here/work/stores"
raw="$here/work/store-raw"
# Stores are removed at the end of the run, not between sizes: ext4 creates files slowly
# right after many were deleted, which would land on the next import.
if [ -d "$stores" ]; then say "store: removing the stores of an earlier run"; rm -rf "$stores"; fi
rm -rf "$raw"
mkdir -p "$stores" "$raw"

empty="$raw/empty.ics"
printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//store.sh//EN\r\nEND:VCALENDAR\r\n' >"$empty"

grant() {
    "$ICAL" privacy grant org.openeventkit.ical --events full --reminders full --store "$1" >/dev/null
}

# chunks FILE DIR SIZE: writes FILE's events as DIR/chunk-K.ics, SIZE UIDs per file (in the
# order they first appear; overrides go with their UID), each file with FILE's header and
# every VTIMEZONE. `ical import` pairs each item with the VTIMEZONEs of its own source
# file, which costs a walk over that file's components per UID, so chunks keep the
# untimed import of the query store quick at 100,000 events.
chunks() {
    rm -rf "$2"
    mkdir -p "$2"
    awk -v dir="$2" -v per="$3" '
        function out(k) { return dir "/chunk-" sprintf("%04d", k) ".ics" }
        /^BEGIN:VEVENT\r?$/ { inEvent = 1; block = ""; uid = "" }
        !inEvent && !started { header = header $0 "\n"; next }
        inEvent {
            block = block $0 "\n"
            if (uid == "" && $0 ~ /^UID:/) uid = $0
            if ($0 ~ /^END:VEVENT\r?$/) {
                inEvent = 0; started = 1
                if (!(uid in chunkOf)) { chunkOf[uid] = int(count / per); count++ }
                k = chunkOf[uid]
                if (!(k in opened)) { opened[k] = 1; printf "%s", header > out(k) }
                printf "%s", block > out(k)
            }
            next
        }
        END { for (k in opened) { printf "END:VCALENDAR\r\n" > out(k); close(out(k)) } }
    ' "$1"
}

# spread STORE: moves the items of the default collection `calendar` over COLLECTIONS
# collections, by their sorted names (item i to collection i mod COLLECTIONS).
collection_names="calendar work family sport school travel club garden"
spread() {
    store=$1 i=0
    for name in $collection_names; do
        [ "$i" -lt "$COLLECTIONS" ] || break
        if [ "$name" != calendar ]; then
            mkdir -p "$store/$name"
            printf '%s' "$(echo "$name" | sed 's/^./\U&/')" >"$store/$name/displayname"
            printf '#%02X%02X%02X' $((i * 50 % 256)) $((120 + i * 30)) $((200 - i * 20)) >"$store/$name/color"
            (cd "$store/calendar" && ls | grep '\.ics$' | LC_ALL=C sort | awk -v n="$COLLECTIONS" -v k="$i" 'NR % n == k' |
                xargs -r mv -t "$store/$name")
        fi
        i=$((i + 1))
    done
}

# khal_config SIZE STORE: a khal configuration over the store's event collections, its
# cache in work/stores/khal-SIZE/.
khal_config() {
    folders=""
    i=0
    for name in $collection_names; do
        [ "$i" -lt "$COLLECTIONS" ] || break
        folders="$folders $2/$name"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086  # the folders' paths have no spaces (work/stores/…)
    khal_write_config "$stores/khal-$1" $folders
}

# MARK: Measuring

# timed NAME SIZE COMMAND...: one process through run-timed (after a sync, untimed), its output kept as
# raw/SIZE-NAME.out (the last run's) and its standard error in raw/SIZE-NAME.err.
timed() {
    name=$1 size=$2
    shift 2
    # Start with nothing waiting to be written: otherwise a process that follows one that
    # wrote megabytes (a cold query's index, khal's cache) pays for that writeback.
    sync
    if line=$("$TIMED" "$raw/$size-$name.out" "$@" 2>>"$raw/$size-$name.err"); then
        printf '%s\n' "$line" >>"$raw/$size-$name"
    else
        say "store: $name failed on $size events (see $raw/$size-$name.err): $line"
        printf 'failed=1 %s\n' "$line" >>"$raw/$size-$name"
    fi
}

# field SIZE NAME KEY: the median of KEY over the runs of NAME that have it, or "-".
field() {
    file="$raw/$1-$2"
    [ -f "$file" ] || { echo -; return; }
    grep -v failed= "$file" | tr ' ' '\n' | sed -n "s/^$3=//p" | sort -n | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "-"; exit }
            if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
        }'
}
# first SIZE NAME KEY: KEY from the first run that has it (counts).
first() {
    file="$raw/$1-$2"
    [ -f "$file" ] || { echo -; return; }
    v=$(tr ' ' '\n' <"$file" | sed -n "s/^$3=//p" | head -n 1)
    echo "${v:--}"
}
runs_of() { f="$raw/$1-$2"; if [ -f "$f" ]; then grep -v failed= "$f" | grep -c 'wall_ms=\|case=' || true; else echo 0; fi; }
# failures SIZE NAME: the runs of NAME that failed.
failures() { f="$raw/$1-$2"; if [ -f "$f" ]; then grep -c failed= "$f" || true; else echo 0; fi; }

# Occurrence keys "UID|YYYY-MM-DD[ HH:MM]" (start in UTC) from `ical query --format json`
# and from khal's "{uid}|{start-long}" lines, unique and sorted.
ical_keys() {
    sed -n 's/.*"uid": "\([^"]*\)".*"start": "\([^"]*\)".*/\1|\2/p' "$1" |
        awk -F'|' '{ s = $2; if (length(s) > 10) s = substr(s, 1, 10) " " substr(s, 12, 5); print $1 "|" s }' | LC_ALL=C sort -u
}
khal_keys() { LC_ALL=C sort -u "$1"; }

load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
started=$(date +%s)

for size in $SIZES; do
    file=$(calendar_file "$size")
    if [ "$size" -ge 100000 ]; then
        import_runs=$BIG_RUNS khal_cold_runs=$BIG_RUNS
        query_runs=$((RUNS < 3 ? RUNS : 3))
    else
        import_runs=$RUNS khal_cold_runs=$RUNS query_runs=$RUNS
    fi
    echo "$import_runs $query_runs $khal_cold_runs" >"$raw/$size-runs"

    # 1. Import into empty stores (kept until the end of the run).
    for round in $(seq 1 "$import_runs"); do
        target="$stores/import-$size-$round"
        grant "$target"
        say "store: $size events: import round $round"
        timed import "$size" timeout "$IMPORT_TIMEOUT" "$ICAL" import "$file" --store "$target"
    done

    # The query store: the same events, imported (untimed) from chunks of the file.
    store="$stores/store-$size"
    say "store: $size events: making the query store"
    chunks "$file" "$stores/chunks-$size" 5000
    grant "$store"
    if ! "$ICAL" import "$stores/chunks-$size"/chunk-*.ics --store "$store" >"$raw/$size-store-import.out" 2>&1; then
        say "store: could not make the query store of $size events: $(cat "$raw/$size-store-import.out")"
        exit 1
    fi
    rm -rf "$stores/chunks-$size"
    spread "$store"
    config=$(khal_config "$size" "$store")

    # 2-4. Rounds of cold and warm month queries, ical and khal interleaved.
    rounds=$query_runs
    [ "$khal_cold_runs" -gt "$rounds" ] && rounds=$khal_cold_runs
    for round in $(seq 1 "$rounds"); do
        say "store: $size events: query round $round of $rounds"
        timed floor "$size" "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json "$empty"
        if [ "$round" -le "$query_runs" ]; then
            rm -f "$store/.openeventkit/index.sqlite" "$store/.openeventkit/index.sqlite-wal" "$store/.openeventkit/index.sqlite-shm"
            timed ical-cold "$size" "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json --store "$store"
            [ "$round" = 1 ] && cp "$raw/$size-ical-cold.out" "$raw/$size-ical-cold.first"
        fi
        if khal_ok && [ "$round" -le "$khal_cold_runs" ]; then
            rm -f "$stores/khal-$size"/cache.db*
            timed khal-cold "$size" "$KHAL" -c "$config" list --day-format "" --format "{uid}|{start-long}" "$month_first" "$month_last"
        fi
        if [ "$round" -le "$query_runs" ]; then
            timed ical-warm "$size" "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json --store "$store"
            khal_ok && timed khal-warm "$size" "$KHAL" -c "$config" list --day-format "" --format "{uid}|{start-long}" "$month_first" "$month_last"
            # The library path; in the first round without an index, so it also times a build in process.
            [ "$round" = 1 ] && rm -f "$store/.openeventkit/index.sqlite" "$store/.openeventkit/index.sqlite-wal" "$store/.openeventkit/index.sqlite-shm"
            if line=$("$STORE_BENCH" query "$store" "$MONTH" 5 2>>"$raw/$size-library.err"); then
                printf '%s\n' "$line" >>"$raw/$size-library"
            else
                say "store: store-bench query failed on $size events"
            fi
        fi
    done

    # Checks (untimed): the same occurrences cold and warm, from ical and khal.
    ical_keys "$raw/$size-ical-warm.out" >"$raw/$size-ical.keys"
    if cmp -s "$raw/$size-ical-cold.first" "$raw/$size-ical-warm.out"; then
        echo same >"$raw/$size-cold-vs-warm"
    else
        echo different >"$raw/$size-cold-vs-warm"
    fi
    if khal_ok; then
        khal_keys "$raw/$size-khal-warm.out" >"$raw/$size-khal.keys"
        LC_ALL=C comm -23 "$raw/$size-ical.keys" "$raw/$size-khal.keys" >"$raw/$size-only-ical"
        LC_ALL=C comm -13 "$raw/$size-ical.keys" "$raw/$size-khal.keys" >"$raw/$size-only-khal"
    fi
    # How many stat calls a warm `ical query` makes (the listings of every item file).
    if command -v strace >/dev/null 2>&1; then
        strace -f -c -o "$raw/$size-strace" "$ICAL" query --at "$MONTH" --tz UTC --component VEVENT --format json --store "$store" >/dev/null 2>&1 || true
        awk '$NF ~ /^(newfstatat|fstatat64|lstat|stat|statx)$/ { n += $4 } END { print n + 0 }' "$raw/$size-strace" >"$raw/$size-stats"
    fi
done

load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
minutes=$(( ($(date +%s) - started + 59) / 60 ))

# MARK: Report

# row SIZE FIGURE OURS OURS_PEAK_MB KHAL KHAL_PEAK_MB RATIO TARGET RESULT RUNS: a table row.
row() {
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"
}
ms() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else if (v >= 10000) printf "%.1f s", v / 1000; else printf "%.0f ms", v }'; }
mb() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else printf "%.0f", v * 1024 / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "-"; else printf "%.1fx", a / b }'; }

report_size() {
    size=$1
    read -r import_runs query_runs khal_cold_runs <"$raw/$size-runs"
    imp=$(field "$size" import wall_ms); imp_peak=$(field "$size" import peak_rss_kib)
    imp_user=$(field "$size" import user_ms); imp_sys=$(field "$size" import sys_ms)
    cold=$(field "$size" ical-cold wall_ms); cold_peak=$(field "$size" ical-cold peak_rss_kib)
    warm=$(field "$size" ical-warm wall_ms); warm_peak=$(field "$size" ical-warm peak_rss_kib)
    kcold=$(field "$size" khal-cold wall_ms); kcold_peak=$(field "$size" khal-cold peak_rss_kib)
    kwarm=$(field "$size" khal-warm wall_ms); kwarm_peak=$(field "$size" khal-warm peak_rss_kib)
    floor=$(field "$size" floor wall_ms)
    ek=$(field "$size" library ek_warm_ms); lib_peak=$(field "$size" library peak_rss_kib)
    snapshot=$(field "$size" library snapshot_ms); index_open=$(field "$size" library index_open_ms)
    cand=$(field "$size" library candidates_ms); readms=$(field "$size" library read_ms); expand=$(field "$size" library expand_ms)
    build=$(field "$size" library build_ms)

    # 1. Import.
    imp_failed=$(failures "$size" import)
    unfinished=$(grep -c 'exit=124' "$raw/$size-import" 2>/dev/null || true)
    if [ "$imp" = - ] && [ "${unfinished:-0}" -gt 0 ]; then
        # Every run was stopped: show the stopped runs' figures.
        stopped=$(grep 'exit=124' "$raw/$size-import" | head -n 1)
        imp_user=$(echo "$stopped" | tr ' ' '\n' | sed -n 's/^user_ms=//p'); imp_sys=$(echo "$stopped" | tr ' ' '\n' | sed -n 's/^sys_ms=//p')
        imp_peak=$(echo "$stopped" | tr ' ' '\n' | sed -n 's/^peak_rss_kib=//p')
        imp="> $IMPORT_TIMEOUT s"
        share=$(awk -v u="$imp_user" -v s="$imp_sys" -v t="$IMPORT_TIMEOUT" 'BEGIN { printf "%.0f", 100 * (u + s) / (t * 1000) }')
        result="MISS: did not finish; stopped after $IMPORT_TIMEOUT s, $share% of it CPU in the process (user $(ms "$imp_user"), sys $(ms "$imp_sys")); see the import scaling below"
    elif [ "$size" -ge 100000 ]; then
        result=$(awk -v v="$imp" -v t="$TARGET_IMPORT_MS" -v u="$imp_user" -v s="$imp_sys" 'BEGIN {
            if (v == "-") { print "failed"; exit }
            if (v < t) { print "PASS"; exit }
            printf "MISS: %.0f%% of the wall time is CPU in the process (user %.1f s, sys %.1f s)\n", 100 * (u + s) / v, u / 1000, s / 1000 }')
    else
        result="- (target at 100,000)"
    fi
    case $imp in '>'*) shown=$imp ;; *) shown=$(ms "$imp") ;; esac
    [ "$imp_failed" -gt 0 ] && result="$result ($imp_failed of the runs failed or did not finish)"
    row "$size" "\`ical import\` of the file, one batch (user $(ms "$imp_user"), sys $(ms "$imp_sys"))" "$shown" "$(mb "$imp_peak")" - - - "< $((TARGET_IMPORT_MS / 1000)) s at 100,000" "$result" "$(runs_of "$size" import) + $imp_failed stopped/failed"

    # 2. Cold.
    cold_ratio=$(ratio "$kcold" "$cold")
    result=$(awk -v o="$cold" -v k="$kcold" -v t="$TARGET_COLD" -v b="$build" 'BEGIN {
        if (o == "-") { print "failed"; exit }
        if (k == "-") { print "khal not measured"; exit }
        if (k / o >= t) { print "PASS"; exit }
        printf "MISS: the index build is %.0f ms of it (in process)\n", b }')
    row "$size" "month query, cold: first \`ical query\` without an index (builds it) / khal's first run (empty cache)" \
        "$(ms "$cold")" "$(mb "$cold_peak")" "$(ms "$kcold")" "$(mb "$kcold_peak")" "$cold_ratio" "≥ ${TARGET_COLD}x faster than khal" "$result" \
        "$(runs_of "$size" ical-cold) / $(runs_of "$size" khal-cold)"

    # 3. Warm.
    warm_ratio=$(ratio "$kwarm" "$warm")
    result=$(awk -v o="$warm" -v k="$kwarm" -v tm="$TARGET_WARM_MS" -v tr="$TARGET_WARM" -v f="$floor" 'BEGIN {
        if (o == "-") { print "failed"; exit }
        miss = ""
        if (o >= tm) miss = sprintf("%.0f ms, not < %d ms", o, tm)
        if (k != "-" && k / o < tr) miss = miss (miss == "" ? "" : "; ") sprintf("%.1fx khal, not %dx", k / o, tr)
        if (k == "-") miss = miss (miss == "" ? "" : "; ") "khal not measured"
        if (miss == "") { print "PASS"; exit }
        printf "MISS (%s). Time: process floor (a query of an empty file) %.0f ms; the rest is opening the store, the folder-time refresh and reading the month from the occurrence cache\n", miss, f }')
    row "$size" "month query, warm: \`ical query\` with the index built / \`khal list\` with its cache" \
        "$(ms "$warm")" "$(mb "$warm_peak")" "$(ms "$kwarm")" "$(mb "$kwarm_peak")" "$warm_ratio" "< ${TARGET_WARM_MS} ms and ≥ ${TARGET_WARM}x faster than khal" "$result" \
        "$(runs_of "$size" ical-warm) / $(runs_of "$size" khal-warm)"

    # 4. Peak memory.
    for which in warm cold; do
        if [ "$which" = warm ]; then peak=$warm_peak; else peak=$cold_peak; fi
        result=$(awk -v p="$peak" -v t="$TARGET_PEAK_MB" 'BEGIN { if (p == "-") print "failed"; else if (p * 1024 / 1e6 < t) print "PASS"; else printf "MISS: %.0f MB\n", p * 1024 / 1e6 }')
        row "$size" "peak memory of a month query ($which)" - "$(mb "$peak")" - "$(mb "$( [ $which = warm ] && echo "$kwarm_peak" || echo "$kcold_peak")")" - "< ${TARGET_PEAK_MB} MB" "$result" "$(runs_of "$size" "ical-$which")"
    done

    # The library path.
    row "$size" "\`EKEventStore.events(matching:)\` of the month, warm, in process (store-bench)" "$(ms "$ek")" "$(mb "$lib_peak")" "$(ms "$kwarm")" - "$(ratio "$kwarm" "$ek")" "(informative: < ${TARGET_WARM_MS} ms, ≥ ${TARGET_WARM}x)" \
        "$(awk -v o="$ek" -v k="$kwarm" -v tm="$TARGET_WARM_MS" -v tr="$TARGET_WARM" 'BEGIN { if (o == "-") print "failed"; else if (o < tm && (k == "-" || k / o >= tr)) print "PASS"; else print "MISS" }')" \
        "$(runs_of "$size" library)"
}

breakdown_size() {
    size=$1
    stats="-"; [ -f "$raw/$size-stats" ] && stats=$(cat "$raw/$size-stats")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$size" \
        "$(first "$size" library items)" "$(first "$size" library collections)" \
        "$(ms "$(field "$size" floor wall_ms)")" "$(ms "$(field "$size" library snapshot_ms)")" "$(ms "$(field "$size" library index_open_ms)")" \
        "$(awk -v v="$(field "$size" library candidates_ms)" 'BEGIN { if (v == "-") print "-"; else printf "%.1f ms", v }')" "$(first "$size" library candidates)" \
        "$(ms "$(field "$size" library read_ms)")" "$(ms "$(field "$size" library expand_ms)")" "$(ms "$(field "$size" library build_ms)")" "$stats"
}

checks_size() {
    size=$1
    ical=$(wc -l <"$raw/$size-ical.keys" | tr -d ' ')
    listed=$(grep -c '"uid"' "$raw/$size-ical-warm.out" || true)
    echo "- $size events: \`ical query\` lists $listed occurrences, $ical distinct (UID, start to the minute) keys (an override can move an instance onto another's start) (cold and warm output: $(cat "$raw/$size-cold-vs-warm")); EKEventStore $(first "$size" library ek_events) occurrences."
    if khal_ok; then
        khal=$(wc -l <"$raw/$size-khal.keys" | tr -d ' ')
        only_ical=$(wc -l <"$raw/$size-only-ical" | tr -d ' ')
        only_khal=$(wc -l <"$raw/$size-only-khal" | tr -d ' ')
        if [ "$only_ical" = 0 ] && [ "$only_khal" = 0 ]; then
            echo "  khal lists $khal distinct keys: the same occurrences (UID and start, minute precision)."
        else
            echo "  khal lists $khal; only in \`ical query\`: $only_ical, only in khal: $only_khal (UID|start, UTC):"
            head -n 5 "$raw/$size-only-ical" | sed 's/^/  - ical only: /'
            head -n 5 "$raw/$size-only-khal" | sed 's/^/  - khal only: /'
        fi
    fi
}

machine() {
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    [ -n "$cpu" ] || cpu=$(uname -m)
    memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || true)
    swift_version=$("$SWIFT" --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1)
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'), $minutes min"
    echo "- Machine: $(nproc) cores ($cpu), $memory memory, $(uname -s) $(uname -r), file system $(stat -f -c %T "$stores" 2>/dev/null || echo unknown)"
    echo "- Swift $swift_version (release build), libical $(pkg-config --modversion libical 2>/dev/null || echo unknown), SQLite $(pkg-config --modversion sqlite3 2>/dev/null || echo unknown)"
    khal_ok && echo "- khal $("$KHAL" --version 2>/dev/null | sed 's/.*version //') ($("$KHAL_VENV/bin/python" --version 2>&1)), work/khal-venv"
    echo "- Load average (1 min) before and after measuring: $load_before and $load_after on $(nproc) cores"
    echo "- Month $MONTH (UTC); items spread over $COLLECTIONS collections; seed $SEED; rounds: $RUNS (at 100,000+ events: $BIG_RUNS import and khal first run, min($RUNS, 3) queries); medians shown"
}

report() {
    echo "# Store benchmarks (issue 8)"
    echo
    machine
    echo
    echo "One table per run; ratios compare figures measured in the same rounds. Times are whole"
    echo "processes (fork to exit, \`c/run-timed.c\`) except the EKEventStore row (in process)."
    echo "Peak memory is the process's ru_maxrss, in MB (10^6 bytes). See Benchmarks/README.md,"
    echo "\"Store benchmarks\", for what each figure means."
    echo
    echo "| events | figure | OpenEventKit | peak MB | khal | khal peak MB | khal ÷ OpenEventKit | target | result | runs |"
    echo "|---:|---|---:|---:|---:|---:|---:|---|---|---|"
    for size in $SIZES; do report_size "$size"; done
    echo
    echo "**Import scaling**: user CPU time of \`ical import\` per 1,000 events, by size (a stopped run"
    echo "counts its CPU time until it was stopped, a lower bound):"
    echo
    for size in $SIZES; do
        u=$(field "$size" import user_ms)
        [ "$u" = - ] && u=$(grep 'exit=124' "$raw/$size-import" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n 's/^user_ms=//p')
        [ -n "$u" ] && [ "$u" != - ] && echo "$size $u"
    done | awk '{ n[NR] = $1; u[NR] = $2 }
        END {
            for (i = 1; i <= NR; i++) {
                line = sprintf("- %d events: %.0f ms per 1,000 events", n[i], u[i] / n[i] * 1000)
                if (i > 1 && u[i - 1] > 0) line = line sprintf(" (%.1fx the events, %.1fx the CPU time: grows as events^%.2f)", n[i] / n[i - 1], u[i] / u[i - 1], log(u[i] / u[i - 1]) / log(n[i] / n[i - 1]))
                print line
            }
        }'
    echo
    echo "## Where a warm query's time goes"
    echo
    echo "From \`store-bench query\` (in process, the same store) and the \`ical query\` process floor (a query of an"
    echo "empty file: process start, loading, argument parsing). A warm \`ical query\` pays the floor, EKEventStore's"
    echo "snapshot, the index's refresh and the query; \`stat calls\` counts the stat system calls of one warm"
    echo "\`ical query\` (strace)."
    echo
    echo "| events | items | collections | process floor | EKEventStore snapshot (lstat of every item) | index open + refresh (lstat of every item) | candidates | candidate count | reading candidates | expansion | index build (in process) | stat calls |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for size in $SIZES; do breakdown_size "$size"; done
    echo
    echo "## Checks"
    echo
    for size in $SIZES; do checks_size "$size"; done
    [ -n "$khal_note" ] && echo "- $khal_note"
    true
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "store: removing the stores"
rm -rf "$stores"
say "store: table written to $RESULTS"
