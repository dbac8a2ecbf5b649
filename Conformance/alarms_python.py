#!/usr/bin/env python3
"""The alarms of every .ics file in a folder, by Python's peers, in the shared JSON shape.

    alarms_python.py expand FOLDER START END   recurring-ical-events 3.8.2, every alarm
    alarms_python.py active FOLDER             icalendar 7.3.2's RFC 9074 Alarms, the alarms
                                               not acknowledged, of non-recurring items

START and END are UTC instants (2025-01-01T00:00:00Z); the window is [START, END).
Floating and all-day times are read in UTC, as `ical alarms --tz UTC` reads them.

An alarm is the entry [uid, trigger, start, action]: the component's UID, the instant the
alarm fires ("U:YYYY-MM-DDTHH:MM:SSZ", one entry per REPEAT repetition), the start of the
occurrence it belongs to, normalised as in expand_python.py ("D:" a date, "F:" a floating
time, "U:" an instant in UTC; for an absolute trigger the start of the component that holds
it), and ACTION. Output:

    {"alarms": {"file.ics": [entry, ...]},          sorted
     "corrections": {"file.ics": [{"kind": ..., "peer": entry, "rfc": entry or null}]},
     "scope": {"file.ics": [uid, ...]},            active only: the items compared
     "errors": {"file.ics": "..."}}

A correction is an entry where this script's own RFC 5545 arithmetic disagrees with the
peer's: the kinds are explained in docs/alarms-interop.md, and AlarmsInteropTests applies
only those it documents. The RFC arithmetic (`rfc_trigger`): weeks and days of a relative
TRIGGER move the wall clock of the occurrence's zone, hours, minutes and seconds are exact
(RFC 5545 3.3.6); a date is midnight in UTC; REPEAT's DURATION is exact.
"""
import json, os, re, sys
from datetime import date, datetime, timedelta, timezone

import icalendar, recurring_ical_events
from icalendar.alarms import Alarms

UTC = timezone.utc


def norm(value):
    """The normalised text of a start: D:, F: or U:."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return "F:" + value.strftime("%Y-%m-%dT%H:%M:%S")
        return "U:" + value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return "D:" + value.strftime("%Y-%m-%d")
    raise TypeError(value)


def instant(value):
    """A trigger as an aware datetime: floating and dates in UTC (the --tz of the test)."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def utc_text(value):
    return "U:" + instant(value).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


DURATION = re.compile(r"^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def nominal_and_exact(text):
    """A DURATION value split into its nominal days and its exact seconds, both signed."""
    match = DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration: {text}")
    sign = -1 if match.group(1) == "-" else 1
    weeks, days, hours, minutes, seconds = (int(g or 0) for g in match.groups()[1:])
    return sign * (7 * weeks + days), sign * (3600 * hours + 60 * minutes + seconds)


def rfc_end(component, start):
    """An occurrence's end by RFC 5545 3.8.5.3: the exact length of DTEND - DTSTART (or DUE -
    DTSTART), or DURATION with nominal days and exact hours; None where the peer's is right."""
    if not isinstance(start, datetime) or start.tzinfo is None:
        return None  # dates and floating times (read in UTC): wall clock and exact agree
    if "DURATION" in component:
        days, seconds = nominal_and_exact(component["DURATION"].to_ical().decode())
        return (start + timedelta(days=days)).astimezone(UTC) + timedelta(seconds=seconds)
    end = component.get("DTEND") or component.get("DUE")
    if end is None or "DTSTART" not in component or not isinstance(end.dt, datetime):
        return None
    length = end.dt.astimezone(UTC) - component["DTSTART"].dt.astimezone(UTC)
    return (start.astimezone(UTC) + length).astimezone(start.tzinfo)


def rfc_trigger(alarm, start, end, repetition):
    """The instant of a relative alarm's repetition by RFC 5545 arithmetic."""
    related = alarm["TRIGGER"].params.get("RELATED", "START").upper()
    base = end if related == "END" else start
    days, seconds = nominal_and_exact(alarm["TRIGGER"].to_ical().decode())
    if isinstance(base, datetime):
        moved = base + timedelta(days=days)  # an aware datetime plus days: the wall clock
    else:
        moved = datetime(base.year, base.month, base.day) + timedelta(days=days)
    moment = instant(moved).astimezone(UTC) + timedelta(seconds=seconds)
    if repetition:
        moment += repetition * alarm["DURATION"].dt
    return moment


def repetition_of(alarm, trigger, start, end, seen=None):
    """Which repetition (0 = TRIGGER itself) the peer's trigger is, by the peer's own sums.

    On a date several repetitions can give the same day (the time is dropped); the peer
    yields them in the order of REPEAT, so `seen` counts them off in that order."""
    offsets = [alarm.TRIGGER]
    for _ in range(alarm.REPEAT):
        offsets.append(offsets[-1] + alarm.DURATION)
    related = alarm.TRIGGER_RELATED
    base = end if related == "END" else start
    matches = [index for index, offset in enumerate(offsets) if instant(base + offset) == instant(trigger)]
    if matches:
        if seen is None:
            return matches[0]
        key = (id(alarm), str(base), str(trigger))
        seen[key] = seen.get(key, -1) + 1
        return matches[min(seen[key], len(matches) - 1)]
    raise ValueError(f"trigger {trigger} is no repetition of {alarm.to_ical()!r}")


def classify(base, alarm):
    """Why the peer's sum can differ from the RFC's, for the correction's kind."""
    days, seconds = nominal_and_exact(alarm["TRIGGER"].to_ical().decode())
    if not isinstance(base, datetime):
        return "date-plus-time" if seconds or alarm.REPEAT else "date-trigger"
    return "wall-clock-hours" if base.tzinfo is not None else "unexplained"


def first_instance_gone(calendar, component):
    """Whether a master's DTSTART instance is excluded (EXDATE), or moved or cancelled by an
    override (an override that keeps its start leaves the instance where it was)."""
    if "RECURRENCE-ID" in component or "DTSTART" not in component:
        return False
    if not any(name in component for name in ("RRULE", "RDATE")):
        return False
    first = norm(component["DTSTART"].dt)
    exdates = component.get("EXDATE", [])
    for exdate in exdates if isinstance(exdates, list) else [exdates]:
        if any(norm(value.dt) == first for value in exdate.dts):
            return True
    return any(other.get("UID") == component.get("UID") and "RECURRENCE-ID" in other
               and norm(other["RECURRENCE-ID"].dt) == first
               and (norm(other["DTSTART"].dt) != first or str(other.get("STATUS", "")).upper() == "CANCELLED")
               for other in calendar.walk(component.name))


def correction(component, alarm, start, end, repetition):
    """The RFC's trigger of a relative alarm's repetition, and the kind of the peer's error
    (meaningful only where the two differ)."""
    if alarm.TRIGGER_RELATED == "END":
        exact_end = rfc_end(component, start)
        if exact_end is not None and instant(exact_end) != instant(end):
            return "wall-clock-length", rfc_trigger(alarm, start, exact_end, repetition)
    base = end if alarm.TRIGGER_RELATED == "END" else start
    return classify(base, alarm), rfc_trigger(alarm, start, end, repetition)


def expand(folder, start, end):
    alarms, corrections, errors = {}, {}, {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ics"):
            continue
        with open(os.path.join(folder, name), "rb") as handle:
            calendar = icalendar.Calendar.from_ical(handle.read())
        try:
            # The occurrences rather than between(): between() turns each into a component
            # and fails on a trigger that is a date (an all-day item's -P1D).
            query = recurring_ical_events.of(calendar, components=["VALARM"])
            found = query._occurrences_between(start, end)
        except Exception as error:  # a file the peer cannot read is reported, not hidden
            errors[name] = f"{type(error).__name__}: {error}"
            continue
        entries, notes, seen = [], [], {}
        for occurrence in found:
            alarm, parent = occurrence.alarm, occurrence.parent
            component = getattr(parent, "_adapter", parent)._component  # an occurrence's, or the item's
            # An absolute alarm's parent is its component: the master's first instance, or an
            # override's own, which is where ical puts it too.
            entry = [parent.uid, utc_text(occurrence.start), norm(parent.start), str(alarm["ACTION"])]
            entries.append(entry)
            if str(component.get("STATUS", "")).upper() == "CANCELLED":
                notes.append({"kind": "cancelled", "peer": entry, "rfc": None})
                continue
            if isinstance(alarm.TRIGGER, datetime):
                # The same sum on both sides; ical puts it on the master's first instance,
                # and on none ("*") when an override or EXDATE has taken that instance away.
                if first_instance_gone(calendar, component):
                    notes.append({"kind": "absolute-without-instance", "peer": entry, "rfc": entry[:2] + ["*"] + entry[3:]})
                continue
            repetition = repetition_of(alarm, occurrence.start, parent.start, parent.end, seen)
            kind, rfc = correction(component, alarm, parent.start, parent.end, repetition)
            if rfc != instant(occurrence.start):
                fixed = entry[:1] + [utc_text(rfc)] + entry[2:]
                in_window = start <= rfc < end
                notes.append({"kind": kind, "peer": entry, "rfc": fixed if in_window else None})
        alarms[name] = sorted(entries)
        if notes:
            corrections[name] = sorted(notes, key=lambda note: note["peer"])
    return {"alarms": alarms, "corrections": corrections, "errors": errors}


def active(folder):
    """icalendar's RFC 9074 view of single (non-recurring, timed) events and to-dos.

    Alarms is built by hand rather than with Component.alarms, which also counts the
    component's DTSTAMP as an acknowledgement (Google Calendar's convention, not RFC 9074).
    """
    alarms, corrections, scope, errors = {}, {}, {}, {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ics"):
            continue
        with open(os.path.join(folder, name), "rb") as handle:
            calendar = icalendar.Calendar.from_ical(handle.read())
        uids = {c.get("UID") for c in calendar.walk() if c.name in ("VEVENT", "VTODO")
                and ("RRULE" in c or "RDATE" in c or "RECURRENCE-ID" in c)}
        entries, notes, compared = [], [], []
        for component in calendar.walk():
            if component.name not in ("VEVENT", "VTODO") or component.get("UID") in uids:
                continue
            if not component.walk("VALARM"):
                continue
            start = component.get("DTSTART").dt if "DTSTART" in component else None
            due = component.get("DUE") or component.get("DTEND")
            if any(isinstance(value, date) and not isinstance(value, datetime) for value in (start, due and due.dt)):
                continue  # all-day: Alarms cannot localise a date trigger (docs/alarms-interop.md)
            try:
                calculation = Alarms()
                calculation.set_parent(component)
                calculation.set_start(start)
                calculation.set_end(component.end if (due is not None or "DURATION" in component or start is not None) else None)
                calculation.set_local_timezone("UTC")
                for alarm in component.walk("VALARM"):
                    calculation.add_alarm(alarm)
                times = calculation.active
            except Exception as error:
                errors[f"{name} {component.get('UID')}"] = f"{type(error).__name__}: {error}"
                continue
            compared.append(str(component.get("UID")))
            anchor = start if start is not None else component.end
            for alarm_time in times:
                trigger = alarm_time.trigger
                entry = [str(component.get("UID")), utc_text(trigger), norm(anchor), str(alarm_time.action)]
                entries.append(entry)
                alarm = alarm_time.alarm
                if isinstance(alarm.TRIGGER, datetime):
                    continue
                begin = start if start is not None else component.end
                repetition = repetition_of(alarm, trigger, begin, component.end)
                kind, rfc = correction(component, alarm, begin, component.end, repetition)
                if rfc != instant(trigger):
                    notes.append({"kind": kind, "peer": entry, "rfc": entry[:1] + [utc_text(rfc)] + entry[2:]})
        if compared:
            alarms[name] = sorted(entries)
            scope[name] = sorted(compared)
        if notes:
            corrections[name] = sorted(notes, key=lambda note: note["peer"])
    return {"alarms": alarms, "corrections": corrections, "scope": scope, "errors": errors}


def parse_utc(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def main():
    mode, folder = sys.argv[1], sys.argv[2]
    if mode == "expand":
        result = expand(folder, parse_utc(sys.argv[3]), parse_utc(sys.argv[4]))
    elif mode == "active":
        result = active(folder)
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(result, sys.stdout, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    main()
