"""recurring_expand.py FILE MONTH_START MONTH_END YEAR_START YEAR_END (Unix seconds)

The Python peer for expansion: icalendar parses the file once (parse_ms), then
recurring_ical_events.of(calendar).between(start, end) lists every occurrence of every
VEVENT in each window (month_ms, year_ms). The windows are UTC datetimes, so floating times
and dates are read as UTC, as ICalKit's bench and the C floor read them. Reading the file is
not timed. Prints one line of key=value pairs, as every contender in Benchmarks/ does.
"""

import datetime
import resource
import sys
import time

import icalendar
import recurring_ical_events


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    path = sys.argv[1]
    bounds = [datetime.datetime.fromtimestamp(int(value), tz=datetime.timezone.utc) for value in sys.argv[2:]]
    with open(path, "rb") as handle:
        data = handle.read()

    start = time.monotonic()
    calendar = icalendar.Calendar.from_ical(data)
    parse_ms = (time.monotonic() - start) * 1000
    fields = [f"parse_ms={parse_ms:.3f}"]

    for name, (low, high) in (("month", bounds[0:2]), ("year", bounds[2:4])):
        start = time.monotonic()
        occurrences = recurring_ical_events.of(calendar, components=["VEVENT"]).between(low, high)
        count = sum(1 for _ in occurrences)
        elapsed = (time.monotonic() - start) * 1000
        fields.append(f"{name}_ms={elapsed:.3f} {name}_occurrences={count}")

    events = len(calendar.walk("VEVENT"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        from importlib.metadata import version as package_version
        version = package_version("recurring-ical-events")
    except Exception:  # noqa: BLE001 - the version is informative only
        version = "unknown"
    fields.append(f"peak_rss_kib={peak} input_bytes={len(data)} events={events} version={version}")
    print(" ".join(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
