"""The python-dateutil peer of the rule-expansion benchmark (Benchmarks/run.sh).

    python dateutil_rules.py RULES.txt

For each line of RULES.txt (name | kind | DTSTART | RRULE | window end, floating), builds the
rule once with dateutil.rrule.rrulestr (not timed), then times iterating it from DTSTART
until it ends or an instance reaches the window end, counting instances, in 5 rounds of at
least 50 ms (wall time; CPU time with BENCH_CLOCK=cpu); prints the median round's time per expansion, one line a rule:
    rule=NAME us=MICROSECONDS instances=N
"""
import os
import sys
import time
from datetime import datetime

from dateutil.rrule import rrulestr


# BENCH_CLOCK=cpu measures CPU time, as the other contenders do (run.sh, rules.sh).
clock = time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter


def expand(rule, end):
    count = 0
    for value in rule:
        if value >= end:
            break
        count += 1
    return count


def main(path):
    with open(path) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            name, _kind, start, text, end = (field.strip() for field in line.split("|"))
            start = datetime.strptime(start, "%Y%m%dT%H%M%S")
            end = datetime.strptime(end, "%Y%m%dT%H%M%S")
            rule = rrulestr(text, dtstart=start)
            rounds = []
            instances = 0
            for _ in range(5):
                began = clock()
                expansions = 0
                while True:
                    instances = expand(rule, end)
                    expansions += 1
                    if clock() - began >= 0.05:
                        break
                rounds.append((clock() - began) * 1e6 / expansions)
            rounds.sort()
            print(f"rule={name} us={rounds[2]:.2f} instances={instances}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
