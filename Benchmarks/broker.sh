#!/bin/sh
# Broker benchmarks (issue 37): the same calls in process and through the broker, in one run
# (`store-bench broker`, Tests/StoreBench/BrokerCase.swift): a warm month query and a batch of
# 1,000 new events saved with one commit, by an EKEventStore over the store folder and by one
# whose every read and write is a call to a broker session over a Unix socket pair.
#
#   sh Benchmarks/broker.sh            (also a step of Benchmarks/run.sh; BENCH_BROKER=0 skips it there)
#
# Environment:
#   BENCH_BROKER_SIZES    store sizes in events       (default "1000 10000")
#   BENCH_BROKER_RESULTS  the Markdown table          (default Benchmarks/results/broker-latest.md)
#   SWIFT
#
# Target (informative, a MISS never fails the run): through the broker within 1.5x of in process.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SIZES=${BENCH_BROKER_SIZES:-"1000 10000"}
RESULTS=${BENCH_BROKER_RESULTS:-"$here/results/broker-latest.md"}
SWIFT=${SWIFT:-swift}
say() { printf '%s\n' "$*" >&2; }

say "broker: building store-bench (release)"
ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product store-bench >&2
STORE_BENCH="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/store-bench"
mkdir -p "$here/work" "$(dirname "$RESULTS")"
work="$here/work/broker"
mkdir -p "$work"

field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
verdict() { awk -v r="$1" 'BEGIN { print (r <= 1.5 ? "PASS" : "MISS") }'; }

{
    echo "# Broker: in process and through the broker ($(date -u +%Y-%m-%d), TZ=UTC)"
    echo
    echo "| events in store | call | in process | through the broker | ratio | target ≤ 1.5x |"
    echo "|---|---|---|---|---|---|"
} >"$RESULTS"
for size in $SIZES; do
    say "broker: $size events"
    line=$(TZ=UTC "$STORE_BENCH" broker "$work" "$size" 9)
    say "$line"
    mr=$(field "$line" month_ratio); sr=$(field "$line" save_ratio)
    echo "| $size | month query, warm ($(field "$line" month_events) events) | $(field "$line" month_inprocess_ms) ms | $(field "$line" month_broker_ms) ms | ${mr}x | $(verdict "$mr") |" >>"$RESULTS"
    echo "| $size | 1,000 new events, one commit | $(field "$line" save_inprocess_ms) ms | $(field "$line" save_broker_ms) ms | ${sr}x | $(verdict "$sr") |" >>"$RESULTS"
done
say "broker: table written to $RESULTS"
cat "$RESULTS"
