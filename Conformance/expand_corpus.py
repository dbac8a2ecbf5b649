#!/usr/bin/env python3
"""Expands every calendar of a folder with recurring-ical-events over a window, in the shape
of expand_python.py ({"file.ics": [[start, end], ...]}, or {"error": ...} when the peer
cannot read or expand it; 30 s per file at most).

expand_corpus.py FOLDER START_YEAR END_YEAR
"""
import json, os, signal, sys
import icalendar, recurring_ical_events
from expand_python import norm


COMPONENTS = ("VEVENT", "VTODO", "VJOURNAL")


class Timeout(Exception):
    pass


def main():
    folder, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    result = {}

    def alarm(*_):
        raise Timeout("more than 30 s")
    signal.signal(signal.SIGALRM, alarm)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ics"):
            continue
        signal.alarm(30)
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                calendars = icalendar.Calendar.from_ical(handle.read(), multiple=True)
            pairs = []
            for calendar in calendars:
                # events, to-dos and journal entries, as `ical query` lists them; a to-do
                # without DTSTART occurs at its DUE (both say so)
                query = recurring_ical_events.of(calendar, components=COMPONENTS)
                for item in query.between((start, 1, 1), (end, 1, 1)):
                    begin = item["DTSTART"].dt if "DTSTART" in item else item["DUE"].dt if "DUE" in item else None
                    if begin is None:
                        continue
                    finish = item["DTEND"].dt if "DTEND" in item else item["DUE"].dt if "DUE" in item else begin
                    pairs.append([norm(begin), norm(finish)])
            result[name] = sorted(pairs)
        except Exception as error:  # reported, not hidden
            result[name] = {"error": f"{type(error).__name__}: {str(error)[:160]}"}
        finally:
            signal.alarm(0)
    json.dump(result, sys.stdout, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    main()
