#!/bin/sh
# Fuzzes ICalKit's reader and writer with libFuzzer for SECONDS (default 600).
#
#   sh scripts/fuzz.sh [SECONDS]        (or: make fuzz FUZZ_SECONDS=...)
#
# Builds Fuzz/ICalFuzz with -sanitize=fuzzer,address and -DFUZZING into .build-fuzz,
# seeds fuzz-corpus/ (gitignored, kept between runs) with every test fixture, runs the
# round-trip check (see Fuzz/ICalFuzz/ICalFuzz.swift), and prints the executions and any
# findings (crash-*, leak-*, timeout-*, oom-* files). Replay a finding without sanitizers:
#   swift build --product ICalFuzz && .build/debug/ICalFuzz crash-...
# A finding that is fixed becomes a fixture under Tests/ICalKitTests/Fixtures/.
set -eu

SECONDS_TO_RUN=${1:-600}
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SCRATCH=.build-fuzz
CORPUS=fuzz-corpus
ARTIFACTS=fuzz-findings
LOG=$ARTIFACTS/fuzz.log

echo "fuzz: building ICalFuzz with libFuzzer and AddressSanitizer" >&2
$SWIFT build -c release --product ICalFuzz --scratch-path "$SCRATCH" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library
BINARY="$($SWIFT build -c release --product ICalFuzz --scratch-path "$SCRATCH" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library --show-bin-path)/ICalFuzz"

mkdir -p "$CORPUS" "$ARTIFACTS"
seeded=0
for file in $(find Tests/ICalKitTests/Fixtures -type f -name '*.ics' | sort); do
    name=$(printf '%s' "$file" | tr '/' '_')
    cp "$file" "$CORPUS/$name"
    seeded=$((seeded + 1))
done
echo "fuzz: seeded $CORPUS/ with $seeded fixtures; running for $SECONDS_TO_RUN s" >&2

# -dict: iCalendar tokens (BEGIN:, folds, escapes, multi-byte characters) to splice in.
# -max_len: the fixtures are small; 64 KiB leaves room for long lines and deep nesting.
# -timeout: one input taking 5 s is a finding (a hang), not a slow machine.
# ASAN_OPTIONS: report leaks (the check allocates and frees every tree).
status=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$BINARY" "$CORPUS" \
    -dict=Fuzz/ICalFuzz/ical.dict -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=5 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$ARTIFACTS/" 2>"$LOG" || status=$?

executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
coverage=$(grep -E '^#[0-9]+' "$LOG" | tail -1 | sed -n 's/.*\(cov: [0-9]*\).*\(ft: [0-9]*\).*\(corp: [^ ]*\).*/\1 \2 \3/p')
echo "fuzz: exit status $status; executions ${executions:-?}; exec/s ${speed:-?}; ${coverage:-coverage ?}"
echo "fuzz: log in $LOG"
findings=$(find "$ARTIFACTS" -type f ! -name fuzz.log | sort)
if [ -n "$findings" ]; then
    echo "fuzz: findings:"
    printf '  %s\n' $findings
    exit 1
fi
echo "fuzz: no findings"
exit "$status"
