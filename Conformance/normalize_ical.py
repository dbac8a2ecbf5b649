#!/usr/bin/env python3
"""Turns `ical query --format json` output into the shared comparison shape.

Reads the JSON array on stdin; prints {"case-0001.ics": [[start, end], ...]} with times
normalised as in expand_python.py: "D:" dates, "F:" floating local times, "U:" instants in UTC.
"""
import json, os, sys
from datetime import datetime, timezone


def norm(text):
    if "T" not in text:
        return "D:" + text
    body, offset = text[:19], text[19:]
    if not offset:
        return "F:" + body
    moment = datetime.fromisoformat(body + offset)
    return "U:" + moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    result = {}
    for item in json.load(sys.stdin):
        name = os.path.basename(item["source"])
        result.setdefault(name, []).append([norm(item["start"]), norm(item["end"])])
    for name in result:
        result[name].sort()
    json.dump(result, sys.stdout, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    main()
