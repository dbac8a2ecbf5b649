#!/usr/bin/env python3
"""Turns `ical alarms --format json` output into the shape of alarms_python.py.

Reads the JSON array on stdin; prints {"file.ics": [[uid, trigger, start, action], ...]},
sorted, with the trigger as "U:" + triggerUTC and the start (a DUE-only to-do's DUE;
"*" for an absolute trigger of a series, which belongs to no occurrence) normalised as in
normalize_ical.py: "D:" dates, "F:" floating local times, "U:" instants in UTC.
"""
import json, os, sys
from datetime import datetime, timezone


def norm(text):
    if "T" not in text:
        return "D:" + text
    body, offset = text[:19], text[19:]
    if not offset:
        return "F:" + body
    moment = datetime.fromisoformat(body + offset.replace("Z", "+00:00"))
    return "U:" + moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    result = {}
    for item in json.load(sys.stdin):
        name = os.path.basename(item["source"])
        # A to-do with DUE only has start null (the peers take DUE as its start); an absolute
        # alarm of a series belongs to no occurrence: start and end null, "*" (as in
        # alarms_python.py).
        anchor = item["start"] if item["start"] is not None else item["end"]
        entry = [item["uid"], norm(item["triggerUTC"]), norm(anchor) if anchor else "*", item["action"]]
        result.setdefault(name, []).append(entry)
    for name in result:
        result[name].sort()
    json.dump(result, sys.stdout, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    main()
