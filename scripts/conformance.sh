#!/bin/sh
# Differential recurrence test: random series expanded by `ical query` (ICalKit) and by two
# independent implementations, Python's recurring-ical-events and Foundation's
# Calendar.RecurrenceRule (plain rules only). Prints agreement rates and groups every
# disagreement by the features of its case. Not part of `make test`: it needs PyPI.
#
#   make conformance                 # 1000 cases, seed 1
#   CASES=5000 SEED=7 make conformance
set -eu
cd "$(dirname "$0")/.."
CASES="${CASES:-1000}"
SEED="${SEED:-1}"
WORK=.build/conformance
VENV="$WORK/venv"
mkdir -p "$WORK"

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import icalendar, recurring_ical_events" 2>/dev/null; then
    echo "conformance: installing icalendar and recurring-ical-events from PyPI into $VENV (test-only)" >&2
    "$VENV/bin/pip" install --quiet icalendar recurring-ical-events
fi

swift build --product ical >/dev/null
ICAL="$(swift build --show-bin-path)/ical"

rm -rf "$WORK/cases"
python3 Conformance/generate.py --seed "$SEED" --cases "$CASES" "$WORK/cases"

echo "conformance: $CASES cases (seed $SEED) in $WORK/cases"
TZ=UTC "$ICAL" query --between 2020-01-01 2031-01-01 --format json "$WORK/cases" 2>"$WORK/ical.stderr" \
    | python3 Conformance/normalize_ical.py > "$WORK/icalkit.json"
"$VENV/bin/python" Conformance/expand_python.py "$WORK/cases" > "$WORK/python.json"

swiftc -O Conformance/foundation_expand.swift -o "$WORK/foundation-expand" 2>/dev/null
"$WORK/foundation-expand" "$WORK/cases" > "$WORK/foundation.json"

python3 Conformance/compare.py "$WORK/cases" "$WORK/icalkit.json" "$WORK/python.json" recurring-ical-events
python3 Conformance/compare.py --starts-only "$WORK/cases" "$WORK/icalkit.json" "$WORK/foundation.json" Foundation
if [ -s "$WORK/ical.stderr" ]; then
    echo "ical reported $(wc -l < "$WORK/ical.stderr") diagnostics (see $WORK/ical.stderr)"
fi

# The real-world corpus: the test calendars shipped in the sdists of icalendar and
# recurring-ical-events (downloaded by pip into the build folder, never committed), expanded
# over [2000, 2030) by both; fails on a difference Conformance/corpus-differences.txt does
# not explain.
python3 Conformance/fetch_sdists.py "$VENV/bin" "$WORK"
TZ=UTC "$ICAL" query --between 2000-01-01 2030-01-01 --format json "$WORK/corpus" 2>"$WORK/corpus-ical.stderr" \
    | python3 Conformance/normalize_ical.py > "$WORK/corpus-icalkit.json"
(cd Conformance && TZ=UTC "../$VENV/bin/python" expand_corpus.py "../$WORK/corpus" 2000 2030) 2>/dev/null > "$WORK/corpus-python.json"
python3 Conformance/compare_corpus.py "$WORK/corpus-icalkit.json" "$WORK/corpus-python.json" Conformance/corpus-differences.txt

# Generated rules (every FREQ with every BYxxx part RFC 5545 allows for it and pairs of them,
# BYSETPOS, WKST, negative indexes, COUNT, UNTIL, leap years, ISO week 53), each from an
# on-rule DTSTART, against python-dateutil; fails on a difference
# Conformance/rule-differences.txt does not classify (Conformance/rules.py).
RULES="${RULES:-1000}"
"$VENV/bin/python" Conformance/rules.py generate --seed "$SEED" --cases "$RULES" "$WORK/rules.ics" "$WORK/rules.json"
TZ=UTC "$ICAL" query --between 1995-01-01 2200-01-01 --format json "$WORK/rules.ics" \
    > "$WORK/rules-icalkit.json" 2>"$WORK/rules-ical.stderr"
"$VENV/bin/python" Conformance/rules.py compare "$WORK/rules.json" "$WORK/rules-icalkit.json" Conformance/rule-differences.txt

# The same generated rules against Foundation's Calendar.RecurrenceRule (ISO weeks; no
# FREQ=SECONDLY), run as a subprocess that is restarted after a rule on which Swift 6.3.1's
# Foundation stops with a fatal error or stalls ("peer crashed or stalled", the run goes on),
# and against recurring-ical-events (each rule as a VEVENT); each fails on a difference its
# list does not classify (Conformance/rule-differences-foundation.txt, rule-differences.txt).
swiftc -O Conformance/foundation_rules.swift -o "$WORK/foundation-rules"
"$VENV/bin/python" Conformance/rules.py foundation "$WORK/rules.json" "$WORK/foundation-rules" "$WORK/rules-foundation.json"
"$VENV/bin/python" Conformance/rules.py compare "$WORK/rules.json" "$WORK/rules-icalkit.json" \
    Conformance/rule-differences-foundation.txt Foundation "$WORK/rules-foundation.json"
"$VENV/bin/python" Conformance/rules.py recurring "$WORK/rules.ics" "$WORK/rules-recurring.json"
"$VENV/bin/python" Conformance/rules.py compare "$WORK/rules.json" "$WORK/rules-icalkit.json" \
    Conformance/rule-differences.txt recurring-ical-events "$WORK/rules-recurring.json"

# Rules in zones with daylight-saving changes (Europe/Berlin, America/New_York; DTSTART
# within days of a change, at times in or near its gap or repeated hour), compared as UTC
# instants against python-dateutil (its wall clock read per RFC 5545 3.3.5) and
# recurring-ical-events.
DST_RULES="${DST_RULES:-300}"
"$VENV/bin/python" Conformance/rules.py generate-dst --seed "$SEED" --cases "$DST_RULES" "$WORK/dst.ics" "$WORK/dst.json"
TZ=UTC "$ICAL" query --between 1995-01-01 2200-01-01 --format json "$WORK/dst.ics" \
    > "$WORK/dst-icalkit.json" 2>"$WORK/dst-ical.stderr"
"$VENV/bin/python" Conformance/rules.py compare "$WORK/dst.json" "$WORK/dst-icalkit.json" Conformance/rule-differences.txt
"$VENV/bin/python" Conformance/rules.py recurring "$WORK/dst.ics" "$WORK/dst-recurring.json"
"$VENV/bin/python" Conformance/rules.py compare "$WORK/dst.json" "$WORK/dst-icalkit.json" \
    Conformance/rule-differences.txt recurring-ical-events "$WORK/dst-recurring.json"
