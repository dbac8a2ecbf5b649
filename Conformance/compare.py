#!/usr/bin/env python3
"""Compares ICalKit's expansions with the peers' and explains the disagreements.

compare.py CASES_DIR ICALKIT.json PEER.json [PEER_NAME]

Prints the agreement rate, then the disagreeing cases grouped by the features the generator
recorded (a feature that shows up in every disagreement of a group names its cause), with
the first differing occurrence of a few examples. Exit status 0 always: disagreements are
findings to read, and the RFC decides who is right (see Conformance/README.md).
"""
import collections, json, os, sys


def main():
    cases_dir, ours_path, peer_path = sys.argv[1:4]
    peer_name = sys.argv[4] if len(sys.argv) > 4 else "peer"
    features = json.load(open(os.path.join(cases_dir, "cases.json")))
    ours = json.load(open(ours_path))
    peer = json.load(open(peer_path))
    compared = agreed = 0
    peer_errors = []
    disagreements = collections.defaultdict(list)
    for name in sorted(peer):
        if name not in ours:
            continue
        theirs = peer[name]
        if isinstance(theirs, dict):
            peer_errors.append((name, theirs["error"]))
            continue
        mine = ours[name]
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
    print(f"{peer_name}: {agreed}/{compared} cases agree ({rate:.1f}%)")
    if peer_errors:
        print(f"  {len(peer_errors)} cases the {peer_name} could not expand, e.g. {peer_errors[0][0]}: {peer_errors[0][1]}")
    by_feature = collections.Counter()
    for key, items in disagreements.items():
        for feature in key:
            by_feature[feature] += len(items)
    if by_feature:
        print("  disagreements by feature: " + ", ".join(f"{f}={n}" for f, n in by_feature.most_common()))
    shown = 0
    for key, items in sorted(disagreements.items(), key=lambda kv: -len(kv[1])):
        for name, mine, theirs in items[:1]:
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
