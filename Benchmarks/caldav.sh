#!/bin/sh
# CalDAV sync benchmarks (issue 13): `ical sync` against vdirsyncer on the same Radicale
# account, each beside the server's own floor measured with plain HTTP requests in the same
# run. See "CalDAV benchmarks" in Benchmarks/README.md.
#
#   sh Benchmarks/caldav.sh            (also a step of Benchmarks/run.sh; BENCH_CALDAV=0 skips it there)
#
# One calendar of BENCH_CALDAV_EVENTS events (default 10000; a tenth of them weekly series)
# is written into Radicale's storage before it starts, then for each contender:
#   first sync     everything comes down into an empty folder
#   no change      a second sync with nothing changed anywhere
#   1 changed      a sync after one event was changed on the server
# and the floors, as plain HTTP from one Python process (http.client, no parsing):
#   calendar-query REPORT with all data (what a first sync must transfer),
#   PROPFIND Depth 1 of every ETag (what a client without sync tokens lists each time),
#   sync-collection REPORT from the current token (what a sync-token client asks).
#
# Environment:
#   BENCH_CALDAV_EVENTS   events in the calendar     (default 10000)
#   BENCH_CALDAV_RUNS     rounds of the repeated syncs; medians shown (default 3)
#   BENCH_CALDAV_RESULTS  the Markdown table         (default Benchmarks/results/caldav-latest.md)
#   SWIFT, CC, PYTHON
#
# Targets (informative, a MISS never fails the run): every ical sync within 1.5x of the floor
# for what it must transfer, and 3x faster than vdirsyncer.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
EVENTS=${BENCH_CALDAV_EVENTS:-10000}
RUNS=${BENCH_CALDAV_RUNS:-3}
RESULTS=${BENCH_CALDAV_RESULTS:-"$here/results/caldav-latest.md"}
SWIFT=${SWIFT:-swift}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
say() { printf '%s\n' "$*" >&2; }

say "caldav: building ical (release)"
ICAL_PACKAGE_ROOT="$top"
. "$top/scripts/release-flags.sh"
"$SWIFT" build -c release $ICAL_RELEASE_FLAGS --package-path "$top" --product ical >&2
ICAL="$("$SWIFT" build -c release --package-path "$top" --show-bin-path)/ical"
mkdir -p "$here/.build" "$here/work"
RUN_TIMED="$here/.build/run-timed"
[ -x "$RUN_TIMED" ] || "$CC" -O2 -Wall -o "$RUN_TIMED" "$here/c/run-timed.c"

VENV="$here/work/dav-venv"
if ! "$VENV/bin/python" -c "import radicale, vdirsyncer" 2>/dev/null; then
    say "caldav: installing radicale and vdirsyncer into $VENV (PyPI)"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check radicale==3.9.0 vdirsyncer==0.21.0 ||
        "$VENV/bin/pip" install --quiet --disable-pip-version-check radicale==3.9.0 vdirsyncer==0.21.0
fi

work=$(mktemp -d "$here/work/caldav.XXXXXX")
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

port=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'bench:bench\n' >"$work/users"
cal="$work/collections/collection-root/bench/lessons"
mkdir -p "$cal"
printf '{"C:supported-calendar-component-set": "VEVENT", "tag": "VCALENDAR"}' >"$cal/.Radicale.props"
say "caldav: writing $EVENTS events into Radicale's storage"
"$VENV/bin/python" - "$cal" "$EVENTS" <<'EOF'
import sys, os
folder, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    day, hour = i % 28 + 1, 8 + i % 10
    rule = "RRULE:FREQ=WEEKLY;COUNT=20\r\n" if i % 10 == 0 else ""
    text = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit bench//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:bench-{i}@openeventkit.example\r\nDTSTAMP:20260101T000000Z\r\n"
            f"DTSTART:202603{day:02d}T{hour:02d}0000Z\r\nDURATION:PT1H\r\n{rule}"
            f"SUMMARY:Lesson {i}\r\nLOCATION:Room {i % 40}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    with open(os.path.join(folder, f"bench-{i}.ics"), "w", newline="") as f:
        f.write(text)
EOF

"$VENV/bin/python" -m radicale --server-hosts "127.0.0.1:$port" --auth-type htpasswd \
    --auth-htpasswd-filename "$work/users" --auth-htpasswd-encryption plain \
    --storage-filesystem-folder "$work/collections" --logging-level warning >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    "$VENV/bin/python" -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
    sleep 0.1
done
base="http://127.0.0.1:$port"

# The floors: plain requests, timed in one process, bodies read and dropped.
floor() {
    "$VENV/bin/python" - "$port" "$1" <<'EOF'
import sys, time, http.client, base64, re
port, what = int(sys.argv[1]), sys.argv[2]
auth = {"Authorization": "Basic " + base64.b64encode(b"bench:bench").decode(), "Content-Type": "application/xml"}
def ask(method, body, depth="1"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    c.request(method, "/bench/lessons/", body=body, headers=dict(auth, Depth=depth))
    r = c.getresponse(); data = r.read(); c.close(); return data
token = re.search(rb"<sync-token>([^<]*)</sync-token>", ask("PROPFIND", '<propfind xmlns="DAV:"><prop><sync-token/></prop></propfind>', "0")).group(1).decode()
bodies = {
    "query": '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>',
    "etags": '<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>',
    "sync": f'<sync-collection xmlns="DAV:"><sync-token>{token}</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>',
}
method = "PROPFIND" if what == "etags" else "REPORT"
start = time.monotonic(); data = ask(method, bodies[what]); ms = (time.monotonic() - start) * 1000
print(f"wall_ms={ms:.0f} bytes={len(data)}")
EOF
}
change_one() {
    "$VENV/bin/python" - "$port" "$1" <<'EOF'
import sys, http.client, base64
port, n = int(sys.argv[1]), sys.argv[2]
auth = "Basic " + base64.b64encode(b"bench:bench").decode()
text = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit bench//EN\r\nBEGIN:VEVENT\r\n"
        "UID:bench-7@openeventkit.example\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260308T150000Z\r\n"
        f"DURATION:PT1H\r\nSUMMARY:Lesson 7 (changed {n})\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
c = http.client.HTTPConnection("127.0.0.1", port)
c.request("PUT", "/bench/lessons/bench-7.ics", body=text.encode(), headers={"Authorization": auth, "Content-Type": "text/calendar"})
assert c.getresponse().status in (201, 204)
EOF
}
value() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | awk '{ printf "%.0f\n", $1 }'; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

say "caldav: floors"
floor_query=$(value "$(floor query)" wall_ms)
floor_etags=$(value "$(floor etags)" wall_ms)
floor_sync=$(value "$(floor sync)" wall_ms)

# ical.
store="$work/store"
export OPENEVENTKIT_STORE="$store"
"$ICAL" privacy grant org.openeventkit.ical --events full >/dev/null
printf 'bench\n' >"$work/password"
"$ICAL" sources add caldav "$base/" --name Bench --user bench --password-command "cat $work/password" >/dev/null
say "caldav: ical first sync"
line=$("$RUN_TIMED" "$work/out" "$ICAL" sync)
ical_first=$(value "$line" wall_ms); ical_first_rss=$(value "$line" peak_rss_kib)
count=$(ls "$store"/bench-lessons | grep -c '\.ics$' || true)

# vdirsyncer.
cat >"$work/vdirsyncer.conf" <<EOF
[general]
status_path = "$work/vdirsyncer-status/"
[pair bench]
a = "local"
b = "remote"
collections = ["from b"]
[storage local]
type = "filesystem"
path = "$work/vdirsyncer/"
fileext = ".ics"
[storage remote]
type = "caldav"
url = "$base/"
username = "bench"
password = "bench"
EOF
yes | "$VENV/bin/vdirsyncer" -c "$work/vdirsyncer.conf" discover >/dev/null 2>&1
say "caldav: vdirsyncer first sync"
line=$("$RUN_TIMED" "$work/out" "$VENV/bin/vdirsyncer" -c "$work/vdirsyncer.conf" sync)
vdir_first=$(value "$line" wall_ms); vdir_first_rss=$(value "$line" peak_rss_kib)

ical_none=""; vdir_none=""; ical_one=""; vdir_one=""; floors_sync="$floor_sync"
for round in $(seq "$RUNS"); do
    say "caldav: round $round"
    # The server's time for the same request varies by half a second between runs: its
    # floor is measured again in each round, just before the syncs, and the median taken.
    [ "$round" = 1 ] || floors_sync="$floors_sync $(value "$(floor sync)" wall_ms)"
    ical_none="$ical_none $(value "$("$RUN_TIMED" "$work/out" "$ICAL" sync)" wall_ms)"
    vdir_none="$vdir_none $(value "$("$RUN_TIMED" "$work/out" "$VENV/bin/vdirsyncer" -c "$work/vdirsyncer.conf" sync)" wall_ms)"
    change_one "ical-$round"
    ical_one="$ical_one $(value "$("$RUN_TIMED" "$work/out" "$ICAL" sync)" wall_ms)"
    change_one "vdirsyncer-$round"
    vdir_one="$vdir_one $(value "$("$RUN_TIMED" "$work/out" "$VENV/bin/vdirsyncer" -c "$work/vdirsyncer.conf" sync)" wall_ms)"
done
m() { printf '%s\n' $1 | median; }
ical_none=$(m "$ical_none"); vdir_none=$(m "$vdir_none"); ical_one=$(m "$ical_one"); vdir_one=$(m "$vdir_one")
floor_sync=$(m "$floors_sync")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "met" : "MISS") }'; }

{
    echo "# CalDAV sync benchmarks"
    echo
    echo "Radicale 3.9.0 on 127.0.0.1, one calendar of $EVENTS events ($count mirrored by ical), $(nproc) cores,"
    echo "$(date -u +%Y-%m-%dT%H:%MZ). Whole processes timed by \`c/run-timed.c\`; repeated syncs are medians"
    echo "of $RUNS rounds. Floors: plain HTTP requests from Python's http.client, body read; the"
    echo "sync-collection floor is measured in each round (median), the calendar-query floor once."
    echo "Command: \`sh Benchmarks/caldav.sh\` (BENCH_CALDAV_EVENTS=$EVENTS)."
    echo
    echo "| sync | floor (plain HTTP) | floor ms | ical ms | ical × floor | vdirsyncer ms | vdirsyncer ÷ ical | targets (≤1.5x floor, ≥3x vdirsyncer) |"
    echo "|---|---|---:|---:|---:|---:|---:|---|"
    r1=$(ratio "$ical_first" "$floor_query"); v1=$(ratio "$vdir_first" "$ical_first")
    echo "| first | calendar-query, all data | $floor_query | $ical_first | $r1 | $vdir_first | $v1 | $(verdict "$r1" 1.5), $(verdict "$(ratio 3 "$v1")" 1) |"
    r2=$(ratio "$ical_none" "$floor_sync"); v2=$(ratio "$vdir_none" "$ical_none")
    echo "| nothing changed | sync-collection from a token | $floor_sync | $ical_none | $r2 | $vdir_none | $v2 | $(verdict "$r2" 1.5), $(verdict "$(ratio 3 "$v2")" 1) |"
    r3=$(ratio "$ical_one" "$floor_sync"); v3=$(ratio "$vdir_one" "$ical_one")
    echo "| 1 changed | sync-collection from a token | $floor_sync | $ical_one | $r3 | $vdir_one | $v3 | $(verdict "$r3" 1.5), $(verdict "$(ratio 3 "$v3")" 1) |"
    echo
    echo "- PROPFIND of every ETag (what a client without sync tokens lists each time): $floor_etags ms."
    echo "- Peak RSS of the first sync: ical $((ical_first_rss / 1024)) MiB, vdirsyncer $((vdir_first_rss / 1024)) MiB."
} >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
say "caldav: table written to $RESULTS"
