#!/usr/bin/env python3
"""Property-based differential test of the rule engine: generated RRULEs, ICalKit against
python-dateutil, every disagreement classified.

    rules.py generate --seed 1 --cases 1000 OUT.ics OUT.json
    rules.py compare OUT.json ICALKIT.json DIFFERENCES.txt [PEER-NAME PEER.json]

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
({uid: [starts]}, e.g. from foundation_rules.swift) that peer replaces dateutil.
"""
import json, random, re, signal, sys
from datetime import datetime, timedelta

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
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//OpenEventKit//Conformance rules//EN"]
    for spec in specs:
        lines += ["BEGIN:VEVENT", f"UID:{spec['uid']}", "DTSTAMP:20240101T000000Z", f"DTSTART:{spec['start']}",
                  f"RRULE:{spec['rule']}", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    with open(ics_path, "w") as handle:
        handle.write("\r\n".join(lines) + "\r\n")
    with open(json_path, "w") as handle:
        json.dump(specs, handle, indent=0)


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
        ours.setdefault(item["uid"], []).append(item["start"].replace("-", "").replace(":", "")[:15])
    differences = load_differences(differences_path)
    peer_lists = {}
    if peer_path is not None:
        with open(peer_path) as handle:
            peer_lists = json.load(handle)
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
        if peer_path is not None:
            if spec["uid"] not in peer_lists:
                continue  # a rule the peer cannot express
            peer = peer_lists[spec["uid"]]
            compared += 1
        else:
            try:
                peer = [v.strftime("%Y%m%dT%H%M%S") for v in first_instances(rule, start, 100_000 if is_bounded else LIMIT, 10)]
            except PeerTimeout:
                timeouts.append(spec["uid"])
                continue
            compared += 1
        mine = sorted(ours.get(spec["uid"], []))
        mine = [v for v in mine if v < "22000101T000000"]
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
        match = next((d for d in differences if d[1].search(rule)), None)
        if match:
            classified.setdefault((match[0], match[1].pattern, match[2]), []).append(spec["uid"])
        else:
            only_ours = sorted(set(mine) - set(peer))[:3]
            only_peer = sorted(set(peer) - set(mine))[:3]
            unexplained.append(f"{spec['uid']} DTSTART:{spec['start']} RRULE:{rule}\n"
                               f"    only ICalKit: {only_ours}  only dateutil: {only_peer}  "
                               f"counts {len(mine)}/{len(peer)}")
    total = compared
    print(f"rules: {agree} / {total} agree with {peer_name} ({100.0 * agree / max(1, total):.1f}%)"
          + (f"; {len(timeouts)} rules the peer did not finish in 10 s" if timeouts else ""))
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
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
