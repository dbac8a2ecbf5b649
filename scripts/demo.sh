#!/bin/sh
# The main job on the sample calendars: build `ical`, then check and convert them.
set -eu
cd "$(dirname "$0")/.."
swift build --product ical
ICAL="$(swift build --show-bin-path)/ical"
export TZ=UTC

echo "== ical validate samples/calendars/"
"$ICAL" validate samples/calendars/

echo
echo "== ical convert samples/calendars/repeating-lessons.ics (canonical iCalendar, nothing lost)"
"$ICAL" convert samples/calendars/repeating-lessons.ics | head -n 40
