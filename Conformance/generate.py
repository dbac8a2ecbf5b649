#!/usr/bin/env python3
"""Generates random recurring series for the differential recurrence test.

Needs python-dateutil (a dependency of icalendar) only to mark cases whose DTSTART does not
match its own rule ("off-rule-start"), where RFC 5545 leaves room and implementations differ.
Seeded and reproducible: `generate.py --seed 1 --cases 1000 OUTDIR` writes OUTDIR/case-NNNN.ics,
one series each (a master and sometimes overrides), and OUTDIR/cases.json with the features
of every case, used to group disagreements. Only the standard library is used.
"""
import argparse, json, os, random
from datetime import datetime, timedelta, date

from dateutil.rrule import rrulestr  # test-only: marks DTSTARTs that do not match their rule

ZONES = ["America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata", "UTC", None]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def fmt_local(dt):
    return dt.strftime("%Y%m%dT%H%M%S")


def make_case(rng, index):
    features = []
    zone = rng.choice(ZONES)
    all_day = rng.random() < 0.2
    year = rng.randint(2022, 2026)
    start = datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.choice([0, 1, 2, 3, 8, 9, 12, 16, 23]),
                     rng.choice([0, 15, 30, 45]))
    freq = rng.choices(["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY"], [30, 30, 25, 10, 5])[0]
    if all_day and freq == "HOURLY":
        freq = "DAILY"
    parts = [f"FREQ={freq}"]
    if freq == "HOURLY":
        parts.append("INTERVAL=" + rng.choice(["3", "5", "7"]))
    elif rng.random() < 0.4:
        parts.append(f"INTERVAL={rng.randint(2, 4)}")
        features.append("interval")
    if freq == "WEEKLY" and rng.random() < 0.7:
        parts.append("BYDAY=" + ",".join(sorted(rng.sample(DAYS, rng.randint(1, 3)), key=DAYS.index)))
        features.append("weekly-byday")
        if rng.random() < 0.2:
            parts.append("WKST=" + rng.choice(["SU", "MO"]))
            features.append("wkst")
    if freq == "MONTHLY":
        choice = rng.random()
        if choice < 0.35:
            parts.append("BYMONTHDAY=" + rng.choice(["1", "15", "-1", "31", "1,15", "30"]))
            features.append("bymonthday")
        elif choice < 0.7:
            parts.append("BYDAY=" + rng.choice(["1MO", "2TU", "-1FR", "3WE", "1SA,1SU", "-2TH"]))
            features.append("monthly-byday")
        elif choice < 0.85:
            parts.append("BYDAY=MO,TU,WE,TH,FR;BYSETPOS=" + rng.choice(["1", "-1", "2"]))
            features.append("bysetpos")
    if freq == "YEARLY" and rng.random() < 0.6:
        parts.append("BYMONTH=" + rng.choice(["1", "3", "6,12", "2"]))
        if rng.random() < 0.5:
            parts.append("BYMONTHDAY=" + rng.choice(["1", "29", "-1"]))
        features.append("yearly-bymonth")
    if freq == "DAILY" and rng.random() < 0.2:
        parts.append("BYDAY=MO,WE,FR")
        features.append("daily-byday")
    end_choice = rng.random()
    if end_choice < 0.45:
        parts.append(f"COUNT={rng.randint(1, 30)}")
        features.append("count")
    elif end_choice < 0.85:
        until = start + timedelta(days=rng.randint(5, 400))
        if all_day:
            parts.append("UNTIL=" + until.strftime("%Y%m%d"))
        elif zone is None:
            parts.append("UNTIL=" + fmt_local(until))
        else:
            parts.append("UNTIL=" + fmt_local(until) + "Z")
        features.append("until")
    else:
        features.append("unbounded")
        if freq == "HOURLY":
            parts.append("COUNT=200")

    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Conformance//EN"]
    uid = f"case-{index:04d}@conformance"
    master = ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20240101T000000Z"]

    def value(dt, with_zone=True):
        if all_day:
            return ";VALUE=DATE:" + dt.strftime("%Y%m%d")
        if zone is None:
            return ":" + fmt_local(dt)
        if zone == "UTC":
            return ":" + fmt_local(dt) + "Z"
        return f";TZID={zone}:" + fmt_local(dt)

    master.append("DTSTART" + value(start))
    duration_kind = rng.random()
    if all_day:
        if duration_kind < 0.5:
            master.append("DTEND" + value(start + timedelta(days=rng.randint(1, 3))))
        else:
            master.append(f"DURATION:P{rng.randint(1, 3)}D")
            features.append("duration")
    elif duration_kind < 0.5:
        master.append("DTEND" + value(start + timedelta(minutes=rng.choice([30, 60, 90, 24 * 60]))))
    elif duration_kind < 0.8:
        master.append("DURATION:" + rng.choice(["PT1H", "PT45M", "PT24H", "P1D", "P1DT1H"]))
        features.append("duration")
    master.append("RRULE:" + ";".join(parts))
    if rng.random() < 0.25:
        extra = start + timedelta(days=rng.randint(1, 60), hours=0 if all_day else rng.randint(0, 5))
        master.append("RDATE" + value(extra))
        features.append("rdate")
    if rng.random() < 0.3:
        # EXDATE on a plausible instance: the DTSTART itself or a day-multiple later.
        step = {"DAILY": 1, "WEEKLY": 7, "MONTHLY": 0, "YEARLY": 0, "HOURLY": 0}[freq]
        ex = start + timedelta(days=step * rng.randint(0, 5))
        master.append("EXDATE" + value(ex))
        features.append("exdate")
    master.append("SUMMARY:Case " + str(index))
    master.append("END:VEVENT")
    lines += master
    if rng.random() < 0.15 and not all_day:
        # Override the DTSTART instance, moved by a few hours.
        moved = start + timedelta(hours=rng.randint(1, 30))
        lines += ["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20240101T000000Z", "RECURRENCE-ID" + value(start),
                  "DTSTART" + value(moved), "DTEND" + value(moved + timedelta(hours=1)), "SUMMARY:Moved", "END:VEVENT"]
        features.append("override")
    lines.append("END:VCALENDAR")
    check = ";".join(p for p in parts if not p.startswith(("COUNT=", "UNTIL=")))
    first = next(iter(rrulestr("RRULE:" + check + ";COUNT=1", dtstart=start)), None)
    if first != start:
        features.append("off-rule-start")
    plain = not any(f in features for f in ("rdate", "exdate", "override")) and freq != "HOURLY"
    foundation = None
    if plain:
        foundation = {"start": start.strftime("%Y-%m-%dT%H:%M:%S"), "zone": zone, "allDay": all_day,
                      "rule": ";".join(parts)}
    if zone is None:
        features.append("floating" if not all_day else "all-day")
    else:
        features.append("all-day" if all_day else ("utc" if zone == "UTC" else "zoned"))
    features.append("freq-" + freq.lower())
    return "\r\n".join(lines) + "\r\n", features, foundation


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("outdir")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.outdir, exist_ok=True)
    meta = {}
    plain = {}
    for index in range(args.cases):
        text, features, foundation = make_case(rng, index)
        name = f"case-{index:04d}.ics"
        with open(os.path.join(args.outdir, name), "w", newline="") as handle:
            handle.write(text)
        meta[name] = features
        if foundation:
            plain[name] = foundation
    with open(os.path.join(args.outdir, "cases.json"), "w") as handle:
        json.dump(meta, handle, indent=1, sort_keys=True)
    with open(os.path.join(args.outdir, "plain-rules.json"), "w") as handle:
        json.dump(plain, handle, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
