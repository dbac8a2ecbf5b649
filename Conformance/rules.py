#!/usr/bin/env python3
"""Property-based differential test of the rule engine: generated RRULEs, ICalKit against
python-dateutil, every disagreement classified.

    rules.py generate --seed 1 --cases 1000 OUT.ics OUT.json
    rules.py compare OUT.json ICALKIT.json DIFFERENCES.txt [PEER-NAME PEER.json]
    rules.py foundation OUT.json FOUNDATION-RULES-BINARY PEER.json

`generate` writes one VCALENDAR with one floating series per rule: every FREQ with every
BYxxx part RFC 5545's table allows for it and pairs of them, BYSETPOS, WKST, negative
indexes, unordered and repeated lists, INTERVAL (also above 60 below DAILY), COUNT, UNTIL
or no end, starts in leap years and in ISO week 53. DTSTART is moved onto the rule's first
instance (by dateutil, then checked from the new start), so the RFC defines the whole set;
cases where that fails are dropped. It needs python-dateutil (test-only, the venv of
scripts/conformance.sh).

Every rule has COUNT or an UNTIL sized to its FREQ, so one `ical query` over 1995-2200
lists all its instances. `compare` reads `ical query --format json` of that file, expands
each rule with dateutil, and compares the starts (everything before 2200). Every
disagreement must match a line of DIFFERENCES.txt (`class | regex on the rule | why`);
the classes are `open` (RFC 5545 leaves it open: the reading is documented in the
Recurrence article), `peer` (the peer is wrong: the line quotes the RFC) and `ours` (a
known ICalKit error). An unexplained disagreement fails the run (exit 1). With PEER-NAME and PEER.json
({uid: [starts]}, or the shape `foundation` writes) that peer replaces dateutil.

`foundation` runs the program built from foundation_rules.swift (Foundation's
Calendar.RecurrenceRule) over the rules as a subprocess, which prints one line per rule.
Swift 6.3.1's Foundation stops the process with a fatal error on some rules; when the
process dies or prints nothing for 10 seconds, the rule after its last line is recorded as
crashed (with the error message) and the program is started again after that rule.
PEER.json is {"starts": {uid: [starts]}, "crashed": {uid: why}, "skipped": {uid: why}};
`compare` reports crashed rules as "peer crashed" (they do not fail the run) and leaves the
skipped ones (FREQ=SECONDLY, which Foundation has not) out.
"""
import json, os, random, re, select, signal, subprocess, sys, tempfile
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

FREQS = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
# RFC 5545 §3.3.10's table: which parts each FREQ may have.
ALLOWED = {
    "BYMONTH": set(FREQS),
    "BYWEEKNO": {"YEARLY"},
    "BYYEARDAY": {"SECONDLY", "MINUTELY", "HOURLY", "YEARLY"},
    "BYMONTHDAY": set(FREQS) - {"WEEKLY"},
    "BYDAY": set(FREQS),
    "BYHOUR": set(FREQS),
    "BYMINUTE": set(FREQS),
    "BYSECOND": set(FREQS),
}
LIMIT = 40
BUDGET = 10_000
END = datetime(2200, 1, 1)


def values(rng, part, freq, has_weekno):
    def pick(pool, low=1, high=3):
        return rng.sample(pool, rng.randint(low, min(high, len(pool))))
    if part == "BYMONTH":
        return pick(list(range(1, 13)))
    if part == "BYWEEKNO":
        return pick([1, 2, 10, 20, 52, 53, -1, -2])
    if part == "BYYEARDAY":
        return pick([1, 2, 59, 60, 100, 200, 365, 366, -1, -2, -100, -366])
    if part == "BYMONTHDAY":
        return pick([1, 2, 13, 15, 28, 29, 30, 31, -1, -2, -15, -31])
    if part == "BYDAY":
        days = pick(DAYS, 1, 3)
        if freq in ("MONTHLY", "YEARLY") and not has_weekno and rng.random() < 0.5:
            return [f"{rng.choice([1, 2, 3, 4, -1, -2] + ([10, 20, 53, -53] if freq == 'YEARLY' else []))}{d}" for d in days]
        return days
    if part == "BYHOUR":
        return pick([0, 1, 2, 6, 9, 12, 18, 23])
    if part == "BYMINUTE":
        return pick([0, 1, 15, 30, 45, 59])
    if part == "BYSECOND":
        return pick([0, 1, 5, 4, 30, 59])
    raise ValueError(part)


def make_rule(rng):
    freq = rng.choice(FREQS)
    allowed = [p for p, freqs in ALLOWED.items() if freq in freqs]
    count = rng.choices([0, 1, 2, 3], [10, 45, 35, 10])[0]
    parts = rng.sample(allowed, count)
    rule = [f"FREQ={freq}"]
    if rng.random() < 0.35:
        big = {"SECONDLY": [2, 7, 61, 3600], "MINUTELY": [2, 7, 61], "HOURLY": [2, 5, 7, 25]}
        rule.append(f"INTERVAL={rng.choice(big.get(freq, [2, 3, 4, 6]))}")
    has_weekno = "BYWEEKNO" in parts
    for part in parts:
        items = values(rng, part, freq, has_weekno)
        if rng.random() < 0.1:
            items = items + [items[0]]  # a repeated item
        rule.append(f"{part}={','.join(map(str, items))}")
    if parts and rng.random() < 0.25:
        rule.append("BYSETPOS=" + ",".join(map(str, rng.sample([1, 2, 3, -1, -2, -3], rng.randint(1, 2)))))
    if (freq == "WEEKLY" or has_weekno) and rng.random() < 0.4:
        rule.append("WKST=" + rng.choice(DAYS))
    # Always bounded, so `ical query` over one wide window lists every instance.
    if rng.random() < 0.6:
        rule.append(f"COUNT={rng.randint(1, 30)}")
    else:
        rule.append("UNTIL=__UNTIL__")
    return ";".join(rule)


class PeerTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise PeerTimeout()


def first_instances(rule, start, limit, seconds=2):
    """dateutil's first instances before END; PeerTimeout when it searches longer than
    `seconds` (it walks every period of a rule that never matches)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        result = []
        for value in rrulestr(rule, dtstart=start):
            if value >= END or len(result) >= limit:
                break
            result.append(value)
        return result
    finally:
        signal.alarm(0)


def generate(seed, cases, ics_path, json_path):
    rng = random.Random(seed)
    specs = []
    attempts = 0
    while len(specs) < cases and attempts < cases * 20:
        attempts += 1
        rule = make_rule(rng)
        year = rng.choice([1999, 2000, 2004, 2009, 2015, 2020, 2024, 2026, 2028])
        start = datetime(year, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.choice([0, 15, 30, 59]),
                         rng.choice([0, 0, 4, 30]))
        if rng.random() < 0.1:
            start = start.replace(month=12, day=rng.randint(26, 31))
        if "__UNTIL__" in rule:
            span = {"SECONDLY": timedelta(minutes=10), "MINUTELY": timedelta(hours=6), "HOURLY": timedelta(days=10),
                    "DAILY": timedelta(days=200), "WEEKLY": timedelta(days=1100), "MONTHLY": timedelta(days=3650),
                    "YEARLY": timedelta(days=14600)}
            until = start + span[rule.split(";")[0][5:]] * rng.choice([0.3, 1])
            rule = rule.replace("__UNTIL__", until.strftime("%Y%m%dT%H%M%S"))
        try:
            first = first_instances(rule, start, 1, seconds=1)
        except Exception:
            continue
        if not first:
            continue
        # Move DTSTART onto the first instance; keep the case only if it is then on-rule.
        start = first[0]
        try:
            again = first_instances(rule, start, 1, seconds=1)
            first_instances(rule, start, 100_000 if bounded(rule) else LIMIT, seconds=2)
        except Exception:
            continue
        if again != [start]:
            continue
        specs.append({"uid": f"rule-{len(specs):04d}", "rule": rule, "start": start.strftime("%Y%m%dT%H%M%S")})
    write_rules(specs, "Conformance rules", ics_path, json_path)


def write_rules(specs, title, ics_path, json_path):
    """One VCALENDAR with a VEVENT per rule (DTSTART floating, or with the spec's TZID), and
    the specs as JSON."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:-//OpenEventKit//{title}//EN"]
    for spec in specs:
        dtstart = f"DTSTART;TZID={spec['tzid']}:{spec['start']}" if spec.get("tzid") else f"DTSTART:{spec['start']}"
        lines += ["BEGIN:VEVENT", f"UID:{spec['uid']}", "DTSTAMP:20240101T000000Z", dtstart,
                  f"RRULE:{spec['rule']}", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    with open(ics_path, "w") as handle:
        handle.write("\r\n".join(lines) + "\r\n")
    with open(json_path, "w") as handle:
        json.dump(specs, handle, indent=0)


def instant_text(value):
    """`ical query --format json`'s start as compared: a floating wall clock
    (YYYYMMDDTHHMMSS), or for a time with an offset its UTC instant (YYYYMMDDTHHMMSSZ)."""
    if len(value) > 19 and value[19] in "+-Z":
        moment = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
        return moment.strftime("%Y%m%dT%H%M%SZ")
    return value.replace("-", "").replace(":", "")[:15]


def in_zone(wall, tzid):
    """A wall-clock instance of a rule as compared: floating, or read in the zone as RFC 5545
    §3.3.5 says (a time in a gap moves forward by the gap: zoneinfo's fold=0 reading; a
    repeated time is its first occurrence), as a UTC instant."""
    if tzid is None:
        return wall.strftime("%Y%m%dT%H%M%S")
    return wall.replace(tzinfo=ZoneInfo(tzid), fold=0).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


DST_ZONES = ["Europe/Berlin", "America/New_York"]


def transitions(tzid, year):
    """The local days in `year` on which the zone's UTC offset changes."""
    zone = ZoneInfo(tzid)
    days = []
    day = datetime(year, 1, 1, 12)
    previous = day.replace(tzinfo=zone).utcoffset()
    while day.year == year:
        day += timedelta(days=1)
        offset = day.replace(tzinfo=zone).utcoffset()
        if offset != previous:
            days.append(day - timedelta(days=1))  # the change happens in the night before noon
        previous = offset
    return days


def generate_dst(seed, cases, ics_path, json_path):
    """Rules in zones with daylight-saving changes, DTSTART within days of a change at a
    time in (or near) its gap or its repeated hour, FREQ HOURLY to YEARLY."""
    rng = random.Random(seed)
    specs = []
    attempts = 0
    while len(specs) < cases and attempts < cases * 20:
        attempts += 1
        rule = make_rule(rng)
        if rule.startswith(("FREQ=SECONDLY", "FREQ=MINUTELY")):
            continue
        tzid = rng.choice(DST_ZONES)
        change = rng.choice(transitions(tzid, rng.choice([2021, 2023, 2024, 2025, 2026])))
        start = change.replace(hour=rng.choice([0, 1, 1, 2, 2, 2, 3, 12])) + timedelta(
            days=rng.choice([-7, -1, -1, 0, 0, 0, 1]), minutes=rng.choice([0, 30, 30]))
        if "__UNTIL__" in rule:
            span = {"HOURLY": timedelta(days=10), "DAILY": timedelta(days=200), "WEEKLY": timedelta(days=1100),
                    "MONTHLY": timedelta(days=3650), "YEARLY": timedelta(days=14600)}
            until = start + span[rule.split(";")[0][5:]] * rng.choice([0.3, 1])
            until_utc = in_zone(until, tzid)
            rule = rule.replace("__UNTIL__", until_utc)
        try:
            first = first_instances(rule_for_dateutil(rule, tzid), start, 1, seconds=1)
            if not first:
                continue
            start = first[0]
            again = first_instances(rule_for_dateutil(rule, tzid), start, 1, seconds=1)
            first_instances(rule_for_dateutil(rule, tzid), start, 100_000, seconds=2)
        except Exception:
            continue
        if again != [start]:
            continue
        specs.append({"uid": f"dst-{len(specs):04d}", "rule": rule, "start": start.strftime("%Y%m%dT%H%M%S"),
                      "tzid": tzid, "dateutil_rule": rule_for_dateutil(rule, tzid)})
    write_rules(specs, "Conformance DST rules", ics_path, json_path)


def rule_for_dateutil(rule, tzid):
    """dateutil expands the wall clock with a naive DTSTART, so a UTC UNTIL becomes the
    zone's wall clock at that instant (its last instance is then the same)."""
    match = re.search(r"UNTIL=(\d{8}T\d{6})Z", rule)
    if not match or tzid is None:
        return rule
    until = datetime.strptime(match.group(1), "%Y%m%dT%H%M%S").replace(tzinfo=timezone.utc)
    wall = until.astimezone(ZoneInfo(tzid)).replace(tzinfo=None)
    return rule.replace(match.group(0), "UNTIL=" + wall.strftime("%Y%m%dT%H%M%S"))


def run_recurring(ics_path, out_path):
    """recurring-ical-events' instances of every VEVENT of the file over 1995-2200, as
    {uid: [starts]} (floating wall clocks, or UTC instants for zoned starts)."""
    import icalendar, recurring_ical_events
    with open(ics_path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    result = {}
    for event in recurring_ical_events.of(calendar).between((1995, 1, 1), (2200, 1, 1)):
        start = event["DTSTART"].dt
        if start.tzinfo is None:
            text = start.strftime("%Y%m%dT%H%M%S")
        else:
            text = start.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        result.setdefault(str(event["UID"]), []).append(text)
    for starts in result.values():
        starts.sort()
    with open(out_path, "w") as handle:
        json.dump(result, handle)
    print(f"recurring-ical-events: {sum(map(len, result.values()))} instances of {len(result)} rules")
    return 0


def bounded(rule):
    return "COUNT=" in rule or "UNTIL=" in rule


def load_differences(path):
    rules = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            kind, pattern, why = (field.strip() for field in line.split(" | ", 2))
            rules.append((kind, re.compile(pattern), why))
    return rules


def compare(specs_path, icalkit_path, differences_path, peer_name="python-dateutil", peer_path=None):
    with open(specs_path) as handle:
        specs = json.load(handle)
    with open(icalkit_path) as handle:
        items = json.load(handle)
    ours = {}
    for item in items:
        ours.setdefault(item["uid"], []).append(instant_text(item["start"]))
    differences = load_differences(differences_path)
    peer_lists = {}
    crashed = {}
    skipped = {}
    if peer_path is not None:
        with open(peer_path) as handle:
            peer_lists = json.load(handle)
        if isinstance(peer_lists.get("starts"), dict):  # the shape `foundation` writes
            crashed = peer_lists.get("crashed", {})
            skipped = peer_lists.get("skipped", {})
            peer_lists = peer_lists["starts"]
    compared = 0
    timeouts = []
    agree = 0
    budget = 0
    classified = {}
    unexplained = []
    for spec in specs:
        rule = spec["rule"]
        start = datetime.strptime(spec["start"], "%Y%m%dT%H%M%S")
        is_bounded = bounded(rule)
        dateutil_rule = spec.get("dateutil_rule", rule)
        if peer_path is not None:
            if spec["uid"] not in peer_lists:
                continue  # a rule the peer cannot express
            peer = peer_lists[spec["uid"]]
            compared += 1
        else:
            try:
                peer = [in_zone(v, spec.get("tzid")) for v in first_instances(dateutil_rule, start, 100_000 if is_bounded else LIMIT, 10)]
            except PeerTimeout:
                timeouts.append(spec["uid"])
                continue
            compared += 1
        mine = sorted(ours.get(spec["uid"], []))
        mine = [v for v in mine if v < "22000101T000000"]
        peer = sorted(peer)
        if not is_bounded:
            mine = mine[:LIMIT]
        if peer_path is not None and len(peer) >= 5000:
            mine = mine[:len(peer)]  # the peer stops at 5000 instances
        if mine == peer:
            agree += 1
            continue
        if len(mine) == BUDGET and mine == peer[:BUDGET]:
            # ICalKit's default ExpansionBudget stops one series at 10,000 occurrences.
            budget += 1
            continue
        # Patterns see the rule, then " DTSTART=" and the start, " TZID=" and the zone of a
        # zoned rule, and " SHAPE=peer-repeats-instants" when the peer's list is ours with
        # some instants twice (lookaheads on the rule are unaffected).
        subject = f"{rule} DTSTART={spec['start']}"
        if spec.get("tzid"):
            subject += f" TZID={spec['tzid']}"
        if len(set(peer)) < len(peer) and sorted(set(peer)) == mine:
            subject += " SHAPE=peer-repeats-instants"
        match = next((d for d in differences if d[1].search(subject)), None)
        if match:
            classified.setdefault((match[0], match[1].pattern, match[2]), []).append(spec["uid"])
        else:
            only_ours = sorted(set(mine) - set(peer))[:3]
            only_peer = sorted(set(peer) - set(mine))[:3]
            unexplained.append(f"{spec['uid']} DTSTART:{spec['start']} RRULE:{rule}\n"
                               f"    only ICalKit: {only_ours}  only {peer_name}: {only_peer}  "
                               f"counts {len(mine)}/{len(peer)}")
    total = compared
    print(f"rules: {agree} / {total} agree with {peer_name} ({100.0 * agree / max(1, total):.1f}%)"
          + (f"; {len(timeouts)} rules the peer did not finish in 10 s" if timeouts else ""))
    if skipped:
        print(f"  not compared: {len(skipped)} rules {peer_name} cannot express ({sorted(set(skipped.values()))[:3]})")
    if crashed:
        print(f"  peer crashed or stalled on {len(crashed)} rules (the run goes on; not counted above):")
        for uid, why in sorted(crashed.items()):
            spec = next((s for s in specs if s["uid"] == uid), None)
            print(f"    {uid} DTSTART:{spec['start'] if spec else '?'} RRULE:{spec['rule'] if spec else '?'}\n      {why[:200]}")
    if budget:
        print(f"  agree up to ICalKit's occurrence budget (10,000 per series): {budget}")
    for (kind, pattern, why), uids in sorted(classified.items()):
        print(f"  {kind:5} {len(uids):4}  {pattern}\n              {why[:160]}")
    if unexplained:
        print(f"rules: {len(unexplained)} unexplained disagreements:")
        for line in unexplained:
            print("  " + line)
        return 1
    return 0


def run_foundation(specs_path, binary, out_path, stall=10):
    """Runs foundation_rules.swift's program over every rule, restarting it after a crash."""
    with open(specs_path) as handle:
        specs = json.load(handle)
    starts, crashed, skipped = {}, {}, {}
    index = 0
    while index < len(specs):
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen([binary, specs_path, str(index)], stdout=subprocess.PIPE, stderr=errors)
            descriptor = process.stdout.fileno()
            pending = b""
            reason = None
            while True:
                ready, _, _ = select.select([descriptor], [], [], stall)
                if not ready:
                    process.kill()
                    reason = f"no answer in {stall} s (stopped)"
                    break
                chunk = os.read(descriptor, 1 << 16)
                if not chunk:
                    break
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    item = json.loads(line)
                    if "starts" in item:
                        starts[item["uid"]] = item["starts"]
                    else:
                        skipped[item["uid"]] = item.get("skipped", "?")
                    index += 1
            status = process.wait()
            process.stdout.close()
            if reason is None and status != 0:
                errors.seek(0)
                lines = [l for l in errors.read().decode("utf-8", "replace").splitlines() if "rror" in l or "atal" in l]
                reason = f"exit status {status}: " + (lines[0].strip() if lines else "no message")
            if reason is not None and index < len(specs):
                crashed[specs[index]["uid"]] = reason
                index += 1
            elif reason is None and index < len(specs):
                crashed[specs[index]["uid"]] = "stopped without an answer"
                index += 1
    with open(out_path, "w") as handle:
        json.dump({"starts": starts, "crashed": crashed, "skipped": skipped}, handle)
    print(f"foundation: {len(starts)} rules expanded, {len(skipped)} skipped, {len(crashed)} crashed")
    return 0


def main():
    if sys.argv[1] == "generate":
        args = sys.argv[2:]
        seed = int(args[args.index("--seed") + 1])
        cases = int(args[args.index("--cases") + 1])
        generate(seed, cases, args[-2], args[-1])
        return 0
    if sys.argv[1] == "compare":
        # compare RULES.json ICALKIT.json DIFFERENCES.txt [PEER-NAME PEER.json]
        return compare(*sys.argv[2:7])
    if sys.argv[1] == "generate-dst":
        args = sys.argv[2:]
        generate_dst(int(args[args.index("--seed") + 1]), int(args[args.index("--cases") + 1]), args[-2], args[-1])
        return 0
    if sys.argv[1] == "recurring":
        return run_recurring(*sys.argv[2:4])
    if sys.argv[1] == "foundation":
        return run_foundation(*sys.argv[2:5])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
