#!/bin/sh
# The main job on the sample calendars: build `ical`, check the samples, generate a term of
# lessons with the school holidays left out, query a month of it merged with the school's
# own calendar, and convert that month to jCal and CSV.
set -eu
cd "$(dirname "$0")/.."
swift build --product ical
ICAL="$(swift build --show-bin-path)/ical"
OUT="${DEMO_OUT:-.build/demo}"
mkdir -p "$OUT"

echo "== ical validate samples/calendars/"
"$ICAL" validate samples/calendars/

echo
echo "== ical lessons --spec samples/calendars/term.yaml -o $OUT/term.ics"
echo "   (holidays from samples/calendars/holidays.ics and the spec become EXDATEs)"
"$ICAL" lessons --spec samples/calendars/term.yaml -o "$OUT/term.ics"
grep -E '^(SUMMARY|RRULE:FREQ=WEEKLY|EXDATE)' "$OUT/term.ics" | cut -c1-110

echo
echo "== ical query --at 2026-12 --tz Europe/Berlin $OUT/term.ics samples/calendars/monthly-events.ics"
"$ICAL" query --at 2026-12 --tz Europe/Berlin "$OUT/term.ics" samples/calendars/monthly-events.ics

echo
echo "== ical query --between 2026-11-09 +2d --format json samples/calendars/repeating-lessons.ics"
echo "   (the 9 November lesson moved to Tuesday by an override)"
"$ICAL" query --between 2026-11-09 +2d --format json samples/calendars/repeating-lessons.ics

echo
echo "== Real-world exports: Outlook (Windows zone names) and Google (X-WR-TIMEZONE), one agenda"
"$ICAL" query --between 2026-12-07 +7d --tz Europe/Berlin \
    samples/calendars/outlook-export.ics samples/calendars/google-export.ics
echo
echo "== ical convert --repair: Windows zones become IANA zones with VTIMEZONEs from tzdata"
"$ICAL" convert --repair samples/calendars/outlook-export.ics -o "$OUT/outlook-repaired.ics" 2>&1 | sed -n '3,6p'
"$ICAL" validate --strict "$OUT/outlook-repaired.ics"

echo
echo "== December as iCalendar, then jCal and CSV, in $OUT/"
"$ICAL" query --at 2026-12 --tz Europe/Berlin --format ics -o "$OUT/december.ics" \
    "$OUT/term.ics" samples/calendars/monthly-events.ics
"$ICAL" convert "$OUT/december.ics" --to jcal --pretty -o "$OUT/december.json"
"$ICAL" convert "$OUT/december.ics" --to csv -o "$OUT/december.csv"
head -n 4 "$OUT/december.csv"
echo "   ... $(grep -c '' "$OUT/december.csv") CSV lines; jCal: $(wc -c < "$OUT/december.json") bytes"
"$ICAL" validate --strict "$OUT/term.ics" "$OUT/december.ics"

echo
echo "== The store, as an app under EventKit's access levels ($OUT/store)"
STORE="$OUT/store"
rm -rf "$STORE"
"$ICAL" privacy grant org.openeventkit.ical --events write-only --store "$STORE"
"$ICAL" import --store "$STORE" "$OUT/term.ics"
echo "-- ical query --at 2026-12 --store ...   (write-only: no reading, not even its own events)"
if "$ICAL" query --at 2026-12 --store "$STORE"; then
    echo "demo: a write-only query should not have read anything" >&2
    exit 1
else
    echo "   (exit status $?)"
fi
"$ICAL" privacy grant org.openeventkit.ical --events full --store "$STORE"
"$ICAL" query --between 2026-12-07 +5d --tz Europe/Berlin --store "$STORE"
"$ICAL" export --store "$STORE" -o "$OUT/store-export.ics"
"$ICAL" validate --strict "$OUT/store-export.ics"
"$ICAL" privacy status --store "$STORE"

echo
echo "== The term as a printable timetable: $OUT/timetable.html (week) and $OUT/december.html (month)"
"$ICAL" view week 2026-11-30 --tz Europe/Berlin --format html --title "Music school, autumn term 2026" \
    --holidays samples/calendars/term.yaml -o "$OUT/timetable.html" "$OUT/term.ics" samples/calendars/monthly-events.ics
"$ICAL" view month 2026-12 --tz Europe/Berlin --format html --title "Music school, autumn term 2026" \
    --holidays samples/calendars/term.yaml -o "$OUT/december.html" "$OUT/term.ics" samples/calendars/monthly-events.ics
echo "   open them in a browser and print (one landscape page, A4 or Letter)"

echo
echo "== ical view month 2026-12 --tz Europe/Berlin --holidays samples/calendars/term.yaml $OUT/term.ics samples/calendars/monthly-events.ics"
"$ICAL" view month 2026-12 --tz Europe/Berlin --holidays samples/calendars/term.yaml \
    "$OUT/term.ics" samples/calendars/monthly-events.ics
