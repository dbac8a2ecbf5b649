#!/usr/bin/env python3
"""Compares ICalKit's expansions with the peers' and explains the disagreements.

compare.py CASES_DIR ICALKIT.json PEER.json [PEER_NAME]

Prints the agreement rate, then the disagreeing cases grouped by the features the generator
recorded (a feature that shows up in every disagreement of a group names its cause), with
the first differing occurrence of a few examples. Exit status 0 always: disagreements are
findings to read, and the RFC decides who is right (see Conformance/README.md).
"""
import collections, json, os, sys


# recurring-ical-events reads a naive window in each event's own zone, ICalKit in UTC: compare
# only what starts well inside the window, so the edges (±14 h) cannot differ.
INNER = ("2020-01-03", "2030-12-29")


def inner(pairs):
    return [p for p in pairs if INNER[0] <= p[0][2:12] <= INNER[1]]


def diagnose(mine, theirs, case_features):
    """Names the shape of a disagreement."""
    if isinstance(mine, dict) or isinstance(theirs, dict):
        return "unexplained"
    ours = [x[0] for x in mine]
    peer = [x[0] for x in theirs]
    if "off-rule-start" in case_features and ours:
        extra_ours = [x for x in ours if x not in peer]
        extra_peer = [x for x in peer if x not in ours]
        if extra_ours in ([], [ours[0]]) and (not extra_peer or (len(extra_peer) == 1 and "count" in case_features)):
            if not extra_ours:
                return "off-rule DTSTART with COUNT: peer lists it but does not count it"
            return "off-rule DTSTART: peer leaves it out" + (" (and adds one at the end)" if extra_peer else "")
    if ours == peer:
        return "same starts, different ends (durations across DST: RFC 5545 3.3.6)"
    only_ours = [x for x in ours if x not in peer]
    only_peer = [x for x in peer if x not in ours]
    if not only_ours and ours == peer[:len(ours)] and len(peer) == len(ours) + 1:
        return "off-rule DTSTART with COUNT: peer lists it but does not count it"
    if ours and only_ours[:1] == [ours[0]]:
        rest_ours = ours[1:]
        # DTSTART off its rule: ICalKit lists it first and counts it toward COUNT (RFC 5545
        # 3.3.10: "The DTSTART property value always counts as the first occurrence").
        if rest_ours == peer:
            return "off-rule DTSTART: peer leaves it out"
        if rest_ours == peer[:len(rest_ours)] and len(peer) == len(ours):
            return "off-rule DTSTART with COUNT: peer leaves it out and adds one at the end"
    return "unexplained"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    starts_only = "--starts-only" in sys.argv
    cases_dir, ours_path, peer_path = args[0:3]
    peer_name = args[3] if len(args) > 3 else "peer"
    features = json.load(open(os.path.join(cases_dir, "cases.json")))
    ours = json.load(open(ours_path))
    peer = json.load(open(peer_path))
    compared = agreed = 0
    peer_errors = []
    disagreements = collections.defaultdict(list)
    for name in sorted(peer):
        theirs = peer[name]
        if isinstance(theirs, dict):
            peer_errors.append((name, theirs["error"]))
            continue
        theirs = inner(theirs)
        mine = inner(ours.get(name, []))
        if starts_only and not isinstance(mine, dict):
            mine = [[x[0], x[0]] for x in mine]
        if isinstance(mine, dict):
            disagreements[("icalkit-error",)].append((name, mine, theirs))
            compared += 1
            continue
        compared += 1
        if [tuple(x) for x in mine] == [tuple(x) for x in theirs]:
            agreed += 1
        else:
            key = tuple(sorted(features.get(name, [])))
            disagreements[key].append((name, mine, theirs))
    rate = 100.0 * agreed / compared if compared else 0.0
    # Diagnose each disagreement by its shape (see README.md for why the RFC decides).
    diagnoses = collections.Counter()
    unexplained = []
    for key, items in disagreements.items():
        for name, mine, theirs in items:
            diagnosis = diagnose(mine, theirs, features.get(name, []))
            diagnoses[diagnosis] += 1
            if diagnosis == "unexplained":
                unexplained.append((name, key, mine, theirs))
    print(f"{peer_name}: {agreed}/{compared} cases agree ({rate:.1f}%); disagreements by diagnosis:")
    if peer_errors:
        print(f"  {len(peer_errors)} cases the {peer_name} could not expand, e.g. {peer_errors[0][0]}: {peer_errors[0][1]}")
    for diagnosis, count in diagnoses.most_common():
        print(f"  {count:4d} {diagnosis}")
    by_feature = collections.Counter()
    for key, items in disagreements.items():
        for feature in key:
            by_feature[feature] += len(items)
    if by_feature:
        print("  disagreements by feature: " + ", ".join(f"{f}={n}" for f, n in by_feature.most_common()))
    shown = 0
    for name, key, mine, theirs in unexplained[:12]:
        for name, mine, theirs in [(name, mine, theirs)]:
            if shown >= 12:
                break
            shown += 1
            if isinstance(mine, dict):
                print(f"  {name} [{' '.join(key)}]: ICalKit error {mine['error']}")
                continue
            only_ours = [x for x in mine if x not in theirs]
            only_theirs = [x for x in theirs if x not in mine]
            print(f"  {name} [{' '.join(key)}]: ICalKit {len(mine)}, {peer_name} {len(theirs)}; "
                  f"only ICalKit {only_ours[:2]}; only {peer_name} {only_theirs[:2]}")


if __name__ == "__main__":
    main()
