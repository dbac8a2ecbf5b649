#!/usr/bin/env python3
"""icalendar_parse.py FILE

Python peer for the ICalKit benchmarks: icalendar.Calendar.from_ical on the whole file,
then to_ical. Reading the file is not timed, as in libical-parse.c and ical-bench.

Prints one line of key=value pairs, the format every contender in Benchmarks/ uses:
  parse_ms=... write_ms=... peak_rss_kib=... input_bytes=... output_bytes=... events=...
peak_rss_kib is resource.getrusage(RUSAGE_SELF).ru_maxrss (KiB on Linux) for the whole
process, interpreter included.

icalendar is a bench-only dependency (run.sh installs it with pip); ICalKit never uses it.
"""
import resource
import sys
import time

import icalendar


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: icalendar_parse.py FILE", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as file:
        data = file.read()

    t0 = time.monotonic()
    calendar = icalendar.Calendar.from_ical(data)
    t1 = time.monotonic()
    t2 = time.monotonic()
    output = calendar.to_ical()
    t3 = time.monotonic()

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    events = sum(1 for _ in calendar.walk("VEVENT"))
    print(
        f"parse_ms={(t1 - t0) * 1e3:.3f} write_ms={(t3 - t2) * 1e3:.3f} peak_rss_kib={peak} "
        f"input_bytes={len(data)} output_bytes={len(output)} events={events} "
        f"version={icalendar.__version__}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
