#!/usr/bin/env python3
"""Compares ICalKit with recurring-ical-events on the real-world corpus (the test calendars
of the icalendar and recurring-ical-events sdists) and checks the differences against the
checked-in list Conformance/corpus-differences.txt.

compare_corpus.py ICALKIT.json PEER.json DIFFERENCES.txt [--write-list]

Prints agreement by file and by occurrence line (a line is one [start, end] pair; lines
agree when both list them) and the listed reasons by kind. Exits 1 when a file differs that
the list does not explain, or whose entry does not start with a reason kind ("policy:",
"invalid input:", "peer wrong:"); files the list names that now agree are reported as stale
entries. --write-list rewrites
the list with every current difference (keeping the reasons already written).
"""
import collections, json, sys

INNER = ("2000-01-03", "2029-12-29")  # window edges differ by design (see README.md)


def inner(pairs):
    return [tuple(p) for p in pairs if INNER[0] <= p[0][2:12] <= INNER[1]]


# The kinds of reason an entry may give; anything else (such as the "unreviewed:" that
# --write-list writes for a new difference) fails the run.
KINDS = ("policy:", "invalid input:", "peer wrong:")


def kind(reason):
    return next((k[:-1] for k in KINDS if reason.startswith(k)), None)


def read_list(path):
    reasons = {}
    try:
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition("\t")
            reasons[name] = reason
    except FileNotFoundError:
        pass
    return reasons


HEADER = (
    "# file<TAB>reason: the corpus differences between ICalKit and recurring-ical-events, each\n"
    "# explained as one of: \"policy:\" (a documented decision of ours; the doc is named),\n"
    "# \"invalid input:\" (what is invalid), \"peer wrong:\" (what the peer does; what the RFC says).\n"
    "# compare_corpus.py fails on a differing file not listed here, and on an entry without one of\n"
    "# these kinds (an entry written as \"unreviewed:\" by --write-list must be reviewed first).\n")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ours, peer = json.load(open(args[0])), json.load(open(args[1]))
    listed = read_list(args[2])
    files = identical = peer_errors = 0
    lines_total = lines_agree = 0
    differing = {}
    for name in sorted(peer):
        files += 1
        theirs = peer[name]
        if isinstance(theirs, dict):
            peer_errors += 1
            differing[name] = "peer cannot read or expand it: " + theirs["error"].replace("\t", " ")
            continue
        mine = collections.Counter(inner(ours.get(name, [])))
        other = collections.Counter(inner(theirs))
        common = sum((mine & other).values())
        lines_total += sum((mine | other).values())
        lines_agree += common
        if mine == other:
            identical += 1
        else:
            only_ours = sorted((mine - other).elements())[:1]
            only_peer = sorted((other - mine).elements())[:1]
            differing[name] = f"ICalKit {sum(mine.values())} lines, peer {sum(other.values())}; only ICalKit {only_ours}; only peer {only_peer}"
    print(f"corpus: {files} files; {identical} identical ({100.0 * identical / max(files, 1):.1f}%), "
          f"{peer_errors} the peer cannot read or expand, {len(differing) - peer_errors} differing")
    print(f"corpus: {lines_agree}/{lines_total} occurrence lines agree ({100.0 * lines_agree / max(lines_total, 1):.1f}%)")
    unexplained = [n for n in differing if n not in listed]
    unreviewed = [n for n in differing if n in listed and kind(listed[n]) is None]
    stale = [n for n in listed if n not in differing]
    for label, names in (("peer cannot read or expand", [n for n in differing if isinstance(peer[n], dict)]),
                         ("differing", [n for n in differing if not isinstance(peer[n], dict)])):
        kinds = collections.Counter(kind(listed[n]) or "UNREVIEWED" for n in names if n in listed)
        print(f"  {label}: " + ", ".join(f"{count} {name}" for name, count in kinds.most_common()))
    for name in stale:
        print(f"  stale entry (now agrees): {name}")
    if "--write-list" in sys.argv:
        with open(args[2], "w", encoding="utf-8") as out:
            out.write(HEADER)
            for name in sorted(differing):
                out.write(f"{name}\t{listed.get(name, 'unreviewed: ' + differing[name])}\n")
        return 0
    for name in unexplained:
        print(f"  UNEXPLAINED {name}: {differing[name]}")
    for name in unreviewed:
        print(f"  UNREVIEWED {name}: the reason must start with one of {', '.join(KINDS)}")
    return 1 if unexplained or unreviewed else 0


if __name__ == "__main__":
    sys.exit(main())
