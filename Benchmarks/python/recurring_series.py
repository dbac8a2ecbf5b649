"""recurring_series.py FILE WINDOW_START WINDOW_END (Unix seconds)

The Python peer of the expansion query benchmark (Benchmarks/expansion-query.sh): icalendar
parses the file, recurring_ical_events.of(calendar).between(start, end) lists every
occurrence of every VEVENT in the window (a UTC window: floating times are read as UTC, as
`ical query` and the C driver read them under TZ=UTC), and each is printed as one line: the
UID, the start and the end as ISO 8601. Prints a last line to standard error:
occurrences=… peak_rss_kib=… version=…
"""

import datetime
import resource
import sys

import icalendar
import recurring_ical_events


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    low, high = (datetime.datetime.fromtimestamp(int(value), tz=datetime.timezone.utc) for value in sys.argv[2:4])
    with open(sys.argv[1], "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    count = 0
    write = sys.stdout.write
    for event in recurring_ical_events.of(calendar, components=["VEVENT"]).between(low, high):
        write(f"{event['UID']} {event['DTSTART'].dt.isoformat()} {event['DTEND'].dt.isoformat()}\n")
        count += 1
    sys.stdout.flush()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        from importlib.metadata import version as package_version
        version = package_version("recurring-ical-events")
    except Exception:  # noqa: BLE001 - the version is informative only
        version = "unknown"
    print(f"occurrences={count} peak_rss_kib={peak} version={version}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
