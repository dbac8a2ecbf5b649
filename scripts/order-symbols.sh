#!/bin/sh
# Writes scripts/ical.order: the functions that `ical` runs to start and to answer the common
# queries, in the order they are first seen, for the release link to place together
# (lld's --symbol-ordering-file; see scripts/release-flags.sh and "Seventh pass" in
# Benchmarks/README.md).
#
#   sh scripts/order-symbols.sh        (needs valgrind: apt-get install valgrind)
#
# Run it after a change that adds or renames much of what a query runs. It builds the release
# binary, generates a 1,000-event calendar (Benchmarks' ical-generate, seed 42), and records
# with callgrind which functions these run: `ical --version`; a warm store query of a month
# in JSON, text and CSV; and the same month read from the .ics file. A stale file does no
# harm: names the code no longer has are skipped by the linker, and a function missing from
# the file is only placed elsewhere.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
SWIFT=${SWIFT:-swift}
PYTHON=${PYTHON:-python3}
command -v valgrind >/dev/null 2>&1 || { echo "order-symbols: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --product ical >&2
ical="$("$SWIFT" build -c release --show-bin-path)/ical"
"$SWIFT" build -c release --package-path Benchmarks --product ical-generate >&2
generate="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)/ical-generate"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 the toolchain writes: profile a copy
# without it (the symbol table, which is all this needs, stays).
strip --strip-debug -o "$work/ical" "$ical"
ical="$work/ical"
export TZ=UTC
"$generate" --events 1000 --seed 42 --years 2025-2026 -o "$work/dense.ics"
"$ical" privacy grant org.openeventkit.ical --events full --reminders full --store "$work/store" >/dev/null
"$ical" import "$work/dense.ics" --store "$work/store" >/dev/null

profile() {
    name=$1
    shift
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" "$ical" "$@" >/dev/null 2>"$work/$name.err" ||
        { echo "order-symbols: $name failed (see $work/$name.err)" >&2; cat "$work/$name.err" >&2; exit 1; }
}
profile version --version
for format in json text csv; do
    # Warm: the first query fills the index and renders the month (under valgrind the
    # program's identity differs, so it renders again there); the second is recorded.
    "$ical" query --at 2026-03 --tz UTC --format "$format" --store "$work/store" >/dev/null
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$ical" query --at 2026-03 --tz UTC --format "$format" --store "$work/store" >/dev/null 2>&1
    profile "store-$format" query --at 2026-03 --tz UTC --format "$format" --store "$work/store"
    profile "file-$format" query --at 2026-03 --tz UTC --format "$format" "$work/dense.ics"
done

nm --defined-only "$ical" | awk '$2 ~ /^[tTwW]$/ { print $3 }' >"$work/symbols"
"$PYTHON" - "$work" >"$top/scripts/ical.order" <<'EOF'
import re, sys
work = sys.argv[1]
defined = set(open(f"{work}/symbols").read().split())
order, seen = [], set()
names = ["version"] + [f"{kind}-{format}" for format in ("json", "text", "csv") for kind in ("store", "file")]
for name in names:
    for line in open(f"{work}/{name}.out", errors="replace"):
        match = re.match(r"c?fn=\(\d+\) (.*)$", line.rstrip("\n"))
        if not match:
            continue
        symbol = match[1].split("'")[0]   # callgrind marks recursion levels with 'N
        if symbol in defined and symbol not in seen:
            seen.add(symbol)
            order.append(symbol)
print("\n".join(order))
EOF
echo "order-symbols: $(wc -l <"$top/scripts/ical.order") functions in scripts/ical.order" >&2
