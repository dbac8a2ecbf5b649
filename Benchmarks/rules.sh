#!/bin/sh
# Rule expansion (issue 19): each rule of Benchmarks/rules/rules.txt expanded from DTSTART to
# its window end (or COUNT) by ICalKit (`ical-bench rules`: RecurrenceSet.occurrences, the
# Swift rule engine), by libical's C iterator (`c/libical-rules.c`) and by python-dateutil
# (`python/dateutil_rules.py`), in the same run. Each contender times 5 rounds of at least
# 50 ms per rule and prints the median round's time per expansion. See "Rule expansion" in
# Benchmarks/README.md.
#
#   sh Benchmarks/rules.sh            (also a step of Benchmarks/run.sh; BENCH_RULES=0 skips it there)
#
# Environment:
#   BENCH_RULES_FILE     the rules                   (default Benchmarks/rules/rules.txt)
#   BENCH_RULES_RESULTS  the Markdown table          (default Benchmarks/results/rules-latest.md)
#   BENCH_PYTHON         0 skips python-dateutil     (default 1)
#   BENCH_CLOCK          cpu: CPU time instead of wall time (ICalKit and libical)
#   SWIFT, CC, PYTHON
#
# Goals (informative, a MISS never fails the run): common rules at most libical's time,
# sparse rules under a millisecond.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
RULES=${BENCH_RULES_FILE:-"$here/rules/rules.txt"}
RESULTS=${BENCH_RULES_RESULTS:-"$here/results/rules-latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
say() { printf '%s\n' "$*" >&2; }

say "rules: building ical-bench (release) and libical-rules"
"$SWIFT" build -c release --package-path "$here" --product ical-bench >&2
BIN=$("$SWIFT" build -c release --package-path "$here" --show-bin-path)
mkdir -p "$here/.build" "$here/work"
# shellcheck disable=SC2046
"$CC" -O2 -Wall -o "$here/.build/libical-rules" "$here/c/libical-rules.c" $(pkg-config --cflags --libs libical)

# python-dateutil from work/venv (bench-only; run.sh installs recurring-ical-events there,
# which brings it), installed when missing.
VENV="$here/work/venv"
dateutil_note=""
if [ "${BENCH_PYTHON:-1}" = 1 ] && command -v "$PYTHON" >/dev/null 2>&1; then
    if ! "$VENV/bin/python" -c 'import dateutil.rrule' >/dev/null 2>&1; then
        say "rules: installing python-dateutil (bench-only) into work/venv"
        if ! { [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" >&2; } ||
           ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check python-dateutil >&2 ||
           ! "$VENV/bin/python" -c 'import dateutil.rrule' >/dev/null 2>&1; then
            dateutil_note="python-dateutil skipped: pip could not install it into work/venv."
        fi
    fi
else
    dateutil_note="python-dateutil skipped (BENCH_PYTHON=0 or no $PYTHON)."
fi

raw="$here/work/rules-raw"
rm -rf "$raw"
mkdir -p "$raw"
load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)
say "rules: ICalKit"
"$BIN/ical-bench" rules "$RULES" | grep '^rule=' >"$raw/icalkit"
say "rules: libical"
"$here/.build/libical-rules" "$RULES" >"$raw/libical"
if [ -z "$dateutil_note" ]; then
    say "rules: python-dateutil"
    "$VENV/bin/python" "$here/python/dateutil_rules.py" "$RULES" >"$raw/dateutil"
else
    : >"$raw/dateutil"
fi
load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)

report() {
    echo "# Rule expansion benchmark (issue 19)"
    echo
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average (1 min) $load_before before, $load_after after"
    echo "- Swift $("$SWIFT" --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1) (release), libical $(pkg-config --modversion libical 2>/dev/null || echo unknown)$( [ -z "$dateutil_note" ] && echo ", python-dateutil $("$VENV/bin/python" -c 'import dateutil; print(dateutil.__version__)')")"
    echo "- Rules: \`$(basename "$RULES")\`; time per expansion from DTSTART to the window end (or COUNT), median of 5 rounds of at least 50 ms"
    echo "- Goals: common rules at most libical's time (× libical ≤ 1.00); sparse rules under 1,000 µs"
    echo
    echo "| rule | kind | RRULE | instances | ICalKit µs | libical µs | dateutil µs | ICalKit × libical | dateutil × libical | goal |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|"
    grep -v '^#' "$RULES" | grep -v '^[[:space:]]*$' | while IFS='|' read -r name kind start rule end; do
        name=$(echo "$name" | tr -d ' '); kind=$(echo "$kind" | tr -d ' '); rule=$(echo "$rule" | tr -d ' ')
        awk -v name="$name" -v kind="$kind" -v rule="$rule" -v icalkit="$raw/icalkit" -v libical="$raw/libical" -v dateutil="$raw/dateutil" '
            function read_line(file,   line, parts, i, kv) {
                us = "-"; instances = "-"; stopped = 0
                while ((getline line < file) > 0) {
                    if (index(line, "rule=" name " ") != 1) continue
                    n = split(line, parts, " ")
                    for (i = 1; i <= n; i++) {
                        split(parts[i], kv, "=")
                        if (kv[1] == "us") us = kv[2]
                        if (kv[1] == "instances") instances = kv[2]
                        if (kv[1] == "stopped") stopped = 1
                    }
                }
                close(file)
            }
            BEGIN {
                read_line(icalkit); ius = us; iinst = instances
                read_line(libical); lus = us; linst = instances; lstop = stopped
                read_line(dateutil); dus = us; dinst = instances
                count = iinst
                if ((linst != "-" && linst != iinst && !lstop) || (dinst != "-" && dinst != iinst)) count = iinst " (libical " linst ", dateutil " dinst ")"
                ratio = (ius != "-" && lus != "-" && lus > 0) ? sprintf(ius / lus < 0.01 ? "%.5f" : "%.2f", ius / lus) : "-"
                dratio = (dus != "-" && lus != "-" && lus > 0) ? sprintf(dus / lus < 0.01 ? "%.5f" : "%.2f", dus / lus) : "-"
                if (lstop) { lus = lus " (stopped at 10 s)" }
                if (ius == "-") goal = "failed"
                else if (kind == "sparse") goal = (ius < 1000) ? "PASS" : "MISS"
                else goal = (ratio != "-" && ratio <= 1.0) ? "PASS" : "MISS"
                printf "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s |\n", name, kind, rule, count, ius, lus, dus, ratio, dratio, goal
            }'
    done
    [ -n "$dateutil_note" ] && echo && echo "- $dateutil_note"
    true
}

mkdir -p "$(dirname "$RESULTS")"
report >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "rules: table written to $RESULTS"
