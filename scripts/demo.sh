#!/bin/sh
# The main job on the sample calendars: build `ical`, check the samples, query a month of
# lessons and school events, and convert the result to jCal and CSV.
set -eu
cd "$(dirname "$0")/.."
swift build --product ical
ICAL="$(swift build --show-bin-path)/ical"
OUT="${DEMO_OUT:-.build/demo}"
mkdir -p "$OUT"

echo "== ical validate samples/calendars/"
"$ICAL" validate samples/calendars/

echo
echo "== ical query --at 2026-12 --tz Europe/Berlin samples/calendars/"
"$ICAL" query --at 2026-12 --tz Europe/Berlin samples/calendars/

echo
echo "== ical query --between 2026-11-09 +2d --format json samples/calendars/repeating-lessons.ics"
echo "   (the 9 November lesson moved to Tuesday by an override)"
"$ICAL" query --between 2026-11-09 +2d --format json samples/calendars/repeating-lessons.ics

echo
echo "== December as iCalendar, then jCal and CSV in $OUT/"
"$ICAL" query --at 2026-12 --format ics -o "$OUT/december.ics" samples/calendars/
"$ICAL" convert "$OUT/december.ics" --to jcal --pretty -o "$OUT/december.json"
"$ICAL" convert "$OUT/december.ics" --to csv -o "$OUT/december.csv"
head -n 4 "$OUT/december.csv"
echo "   ... $(grep -c '' "$OUT/december.csv") lines; jCal: $(wc -c < "$OUT/december.json") bytes"
