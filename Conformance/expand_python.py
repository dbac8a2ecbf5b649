#!/usr/bin/env python3
"""Expands every case with Python's recurring-ical-events, printing the shared JSON shape.

Output: {"case-0001.ics": [[start, end], ...], ...} with each time normalised as
"D:YYYY-MM-DD" (all-day), "F:YYYY-MM-DDTHH:MM:SS" (floating) or "U:YYYY-MM-DDTHH:MM:SSZ" (an
instant in UTC), sorted. The window is [2020-01-01, 2031-01-01) and cases start 2022-2026,
so window edges never matter.
"""
import json, os, sys
from datetime import date, datetime, timezone
import icalendar, recurring_ical_events


def norm(value):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return "F:" + value.strftime("%Y-%m-%dT%H:%M:%S")
        return "U:" + value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return "D:" + value.strftime("%Y-%m-%d")
    raise TypeError(value)


def main():
    folder = sys.argv[1]
    result = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ics"):
            continue
        with open(os.path.join(folder, name), "rb") as handle:
            calendar = icalendar.Calendar.from_ical(handle.read())
        try:
            events = recurring_ical_events.of(calendar).between((2020, 1, 1), (2031, 1, 1))
            pairs = sorted([norm(e["DTSTART"].dt), norm(e["DTEND"].dt if "DTEND" in e else e["DTSTART"].dt)] for e in events)
            result[name] = pairs
        except Exception as error:  # a case the peer cannot expand is reported, not hidden
            result[name] = {"error": f"{type(error).__name__}: {error}"}
    json.dump(result, sys.stdout, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    main()
