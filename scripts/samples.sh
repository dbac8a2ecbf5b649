#!/bin/sh
# make samples: build the sample apps (samples/) and run them as a new user would,
# against a temporary store, with the user's decisions recorded beforehand through
# `ical privacy` and the system editor and chooser answered on a pseudo-terminal (`script`).
# Each run's output is compared with scripts/samples-expected/NAME.txt, and the store is
# checked with `ical query`; any difference fails. SAMPLES_UPDATE=1 rewrites the expected
# files instead (then review them with git diff).
#
# Every sample runs twice, on two stores made the same way with the same grants: directly
# (OpenEventKit in the app opens the store), then sandboxed under `ical run --app
# samples/NAME/Info.plist` (Landlock; OpenEventKit in the app talks to the store's broker,
# and the editor, chooser, viewer and prompts show on ical run's terminal). Both runs are
# checked against the same expected files, so their outputs agree; a file in
# scripts/samples-expected/run/ overrides one where the sandboxed run rightly differs.
# SAMPLES_MODES="direct" (or "run") runs one way only. Where the kernel's Landlock is
# older than ABI 6, `ical run` refuses (exit 78) and the sandboxed runs are skipped.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
EXPECTED="$ROOT/scripts/samples-expected"

swift build
BIN=$(swift build --show-bin-path)
WORK=$(mktemp -d)

# A pinned world: the store, the zone, the locale; the editor is the ical just built; no
# manifest from the caller's environment (each sample uses the Info.plist in its folder).
# The apps' containers (ical run) go under $WORK too, never the caller's home.
export OPENEVENTKIT_ICAL="$BIN/ical" TZ=Europe/Berlin LC_ALL=C.UTF-8 XDG_DATA_HOME="$WORK/data"
unset OPENEVENTKIT_MANIFEST OPENEVENTKIT_STORE 2>/dev/null || true
ICAL="$BIN/ical"
failures=0
# The brokers this script starts (one per sandboxed store), stopped at the end.
BROKERS=""
# SAMPLES_KEEP=1 keeps the work folder (the terminals' transcripts, the broker's log) and names it.
trap 'for pid in $BROKERS; do kill "$pid" 2>/dev/null || true; done; if [ "${SAMPLES_KEEP:-0}" = 1 ]; then echo "samples: kept $WORK"; else rm -rf "$WORK"; fi' EXIT INT TERM

# check NAME FILE: compares FILE with the expected output NAME (in the sandboxed run,
# scripts/samples-expected/run/NAME.txt when there is one).
check() {
    expected="$EXPECTED/$1.txt"
    if [ "$MODE" = run ] && [ -f "$EXPECTED/run/$1.txt" ]; then expected="$EXPECTED/run/$1.txt"; fi
    if [ "${SAMPLES_UPDATE:-}" = 1 ]; then
        if [ "$MODE" = direct ]; then cp "$2" "$expected"; echo "samples: updated $1"
        elif ! cmp -s "$expected" "$2"; then
            echo "samples: $MODE $1 differs from the direct run's ${expected#"$ROOT/"} (add scripts/samples-expected/run/$1.txt if it should):"
            diff -u "$expected" "$2" || true
            failures=$((failures + 1))
        fi
    elif diff -u "$expected" "$2" > "$WORK/diff"; then
        echo "samples: $MODE $1 ok"
    else
        echo "samples: $MODE $1 differs from ${expected#"$ROOT/"}:"
        cat "$WORK/diff"
        failures=$((failures + 1))
    fi
}

# expect NAME TEXT COMMAND...: the command's output (stdout and stderr) contains TEXT.
expect() {
    name=$1 text=$2
    shift 2
    if "$@" > "$WORK/out" 2>&1 && grep -q -F -- "$text" "$WORK/out"; then
        echo "samples: $MODE $name ok"
    else
        echo "samples: $MODE $name: expected '$text' in the output of: $*"
        cat "$WORK/out"
        failures=$((failures + 1))
    fi
}

# absent NAME TEXT COMMAND...: the command succeeds and its output does not contain TEXT.
absent() {
    name=$1 text=$2
    shift 2
    if "$@" > "$WORK/out" 2>&1 && ! grep -q -F -- "$text" "$WORK/out"; then
        echo "samples: $MODE $name ok"
    else
        echo "samples: $MODE $name: did not expect '$text' in the output of: $*"
        cat "$WORK/out"
        failures=$((failures + 1))
    fi
}

# alone NAME COMMAND...: runs the command with no terminal at all (a new session, standard
# input empty), as CI or a service would, and checks its output and exit status.
alone() {
    name=$1
    shift
    status=0
    setsid -w "$@" < /dev/null > "$WORK/$name.txt" 2>&1 || status=$?
    echo "exit status $status" >> "$WORK/$name.txt"
    check "$name" "$WORK/$name.txt"
}

# on_terminal NAME COMMAND < SCRIPT: runs COMMAND on a pseudo-terminal; SCRIPT's lines are
# "text to wait for|line to type" (nothing to wait for: type at once), or
# "text to wait for|!shell command" to run a command (another program, while the sample
# waits) instead of typing. The transcript (what the
# user saw) is checked.
on_terminal() {
    name=$1 command=$2
    out="$WORK/$name.raw"
    : > "$out"
    rm -f "$WORK/fifo"
    mkfifo "$WORK/fifo"
    timeout 120 script -qfec "$command" /dev/null < "$WORK/fifo" > "$out" 2>&1 &
    pid=$!
    exec 3> "$WORK/fifo"
    offset=0
    while IFS='|' read -r wait answer; do
        tries=0
        until [ -z "$wait" ] || tail -c +$((offset + 1)) "$out" | grep -q -F -- "$wait"; do
            tries=$((tries + 1))
            if [ $tries -gt 600 ]; then echo "samples: $name: no '$wait' on the terminal after 30 s"; break; fi
            sleep 0.05
        done
        offset=$(wc -c < "$out")
        case $answer in
            '!'*) sh -c "${answer#!}" ;;
            *) printf '%s\n' "$answer" >&3 ;;
        esac
    done
    exec 3>&-
    status=0
    wait $pid || status=$?
    tr -d '\r' < "$out" > "$WORK/$name.txt"
    echo "exit status $status" >> "$WORK/$name.txt"
    check "$name" "$WORK/$name.txt"
}

# app NAME ARGUMENTS...: the command line that runs sample NAME in this run's mode: the
# program itself, or under `ical run` with its Info.plist. Sandboxed, an app reads only the
# system, its own folder (.build/debug) and its container, not samples/calendars/: the
# catalogues it lists are handed to it in its container (--lessons).
app() {
    name=$1
    shift
    case $MODE in
        direct) echo "$BIN/$name $*" ;;
        run)
            lessons=""
            case $name in
                DropInLessons) lessons="--lessons $WORK/data/openeventkit-apps/org.openeventkit.samples.DropInLessons/drop-in-lessons.ics" ;;
                RepeatingLessons) lessons="--lessons $WORK/data/openeventkit-apps/org.openeventkit.samples.RepeatingLessons/repeating-lessons.ics" ;;
            esac
            echo "$ICAL run --app samples/$name/Info.plist -- $BIN/$name $* $lessons" ;;
    esac
}

# scenario MODE: every sample, on a new store made the same way.
scenario() {
    MODE=$1
    export OPENEVENTKIT_STORE="$WORK/$MODE/store"
    mkdir -p "$WORK/$MODE"
    if [ "$MODE" = run ]; then
        for sample in DropInLessons RepeatingLessons; do
            container="$WORK/data/openeventkit-apps/org.openeventkit.samples.$sample"
            mkdir -p "$container" && chmod 700 "$WORK/data/openeventkit-apps" "$container"
        done
        cp samples/calendars/drop-in-lessons.ics "$WORK/data/openeventkit-apps/org.openeventkit.samples.DropInLessons/"
        cp samples/calendars/repeating-lessons.ics "$WORK/data/openeventkit-apps/org.openeventkit.samples.RepeatingLessons/"
    fi
    echo "== $MODE: the user's calendars: School and Choir (imported), Lessons (empty)"
    "$ICAL" privacy grant org.openeventkit.ical --events full --reminders full > /dev/null
    "$ICAL" calendars create School > /dev/null
    "$ICAL" calendars create Choir > /dev/null
    "$ICAL" calendars create Lessons > /dev/null
    "$ICAL" import samples/calendars/monthly-events.ics --calendar School > /dev/null
    "$ICAL" import samples/calendars/google-export.ics --calendar Choir > /dev/null

    echo "== $MODE: DropInLessons: no access, the system's editor"
    alone dropin-list $(app DropInLessons --list)
    alone dropin-no-terminal $(app DropInLessons --book 1)
    on_terminal dropin-save "$(app DropInLessons --book 2)" <<'SCRIPT'
> |1
keeps it|Sight-reading (drop-in)
> |8
(a number)|3
> |s
SCRIPT
    on_terminal dropin-cancel "$(app DropInLessons --book 3)" <<'SCRIPT'
> |c
SCRIPT
    expect dropin-saved-in-lessons "Sight-reading (drop-in)" "$ICAL" query --at 2026-12-10 --calendar Lessons
    absent dropin-canceled-not-saved "ensemble" "$ICAL" query --at 2026-12-17
    absent dropin-no-terminal-not-saved "jazz harmony" "$ICAL" query --at 2026-12-03

    echo "== $MODE: RepeatingLessons: write-only access, the calendar chooser"
    alone repeating-undecided $(app RepeatingLessons --book 1)
    "$ICAL" privacy grant org.openeventkit.samples.RepeatingLessons --events write-only > /dev/null
    on_terminal repeating-book "$(app RepeatingLessons --book 1 --choose-calendar)" <<'SCRIPT'
> |3
> |d
SCRIPT
    expect repeating-in-lessons "Piano lesson – grade 3 (Émilie)" "$ICAL" query --at 2026-12-14 --calendar Lessons
    "$ICAL" privacy revoke org.openeventkit.samples.RepeatingLessons > /dev/null
    alone repeating-denied-chooser $(app RepeatingLessons --choose-calendar)

    echo "== $MODE: MonthlyEvents: full access, EKEventStoreChanged, deleting"
    "$ICAL" privacy revoke org.openeventkit.samples.MonthlyEvents > /dev/null
    alone monthly-denied $(app MonthlyEvents --from 2026-12-01)
    "$ICAL" privacy grant org.openeventkit.samples.MonthlyEvents --events full > /dev/null
    alone monthly-list $(app MonthlyEvents --from 2026-12-01 --list)
    alone monthly-delete $(app MonthlyEvents --from 2026-12-01 --delete 3,7)
    alone monthly-after $(app MonthlyEvents --from 2026-12-01 --list)
    # Another process adds an event while MonthlyEvents waits for an answer: its change loop
    # (NotificationCenter.notifications(named: .EKEventStoreChanged)) lists the month again.
    on_terminal monthly-external "$(app MonthlyEvents --from 2026-12-01)" <<SCRIPT
Enter quits) |!"$ICAL" events add --title "Extra rehearsal" --start 2026-12-22T18:00 --tz Europe/Berlin --calendar Choir > /dev/null
Extra rehearsal|!sleep 1
|
SCRIPT
    # The system's event viewer (EKEventViewController, editing allowed) on the event just added:
    # the user edits its title, then closes the viewer; the app learns only that.
    on_terminal monthly-show "$(app MonthlyEvents --from 2026-12-01 --show 10)" <<'SCRIPT'
> |e
> |1
keeps it|Extra rehearsal (tutti)
> |s
> |
SCRIPT
    expect monthly-shown-and-edited "Extra rehearsal (tutti)" "$ICAL" query --at 2026-12-22 --calendar Choir
    # An invitation (the choir's conductor invites the user, who is cleo@school.example, as
    # `ical calendars me` says): the system's viewer offers Accept, Maybe and Decline for the
    # user's own entry; the app learns only "responded".
    printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//samples//EN\r\nBEGIN:VEVENT\r\nUID:concert-invitation@choir.example\r\nDTSTAMP:20261120T000000Z\r\nSEQUENCE:0\r\nDTSTART;TZID=Europe/Berlin:20261230T180000\r\nDTEND;TZID=Europe/Berlin:20261230T200000\r\nSUMMARY:New Year concert\r\nORGANIZER;CN=Ada Conductor:mailto:ada@choir.example\r\nATTENDEE;CN=Ben Bass;PARTSTAT=ACCEPTED:mailto:ben@choir.example\r\nATTENDEE;CN=Cleo Cello;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:cleo@school.example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' > "$WORK/invitation.ics"
    "$ICAL" calendars me cleo@school.example > /dev/null
    "$ICAL" import "$WORK/invitation.ics" --calendar Choir > /dev/null
    # Waits for the viewer's own line ("> " alone matches "<ben@choir.example> (accepted)" above
    # it when the terminal is slow), then a moment for its prompt.
    on_terminal monthly-invitation "$(app MonthlyEvents --from 2026-12-01 --show 11)" <<'SCRIPT'
Enter Done; a Accept|!sleep 0.5
|a
SCRIPT
    expect monthly-invitation-accepted "PARTSTAT=ACCEPTED:mailto:cleo@school.example" "$ICAL" export --calendar Choir
    absent monthly-deleted-occurrence "Student recital day" "$ICAL" query --at 2026-12-05
    expect monthly-kept-series "Student recital day" "$ICAL" query --at 2027-01-02

    echo "== $MODE: LessonRooms: a virtual conference extension, offered by the system's editor"
    expect lessonrooms-add "Registered Lesson Rooms (org.openeventkit.samples.LessonRooms)" \
        "$ICAL" extensions add samples/LessonRooms/Info.plist --executable "$BIN/LessonRooms"
    expect lessonrooms-room-types "Ensemble hall (group lesson)  (ensemble-hall)" "$ICAL" extensions list --room-types
    # DropInLessons (no access) books the ensemble lesson; at the location the user picks the
    # extension's ensemble hall: the editor runs LessonRooms and saves the conference.
    on_terminal lessonrooms-book "$(app DropInLessons --book 3)" <<'SCRIPT'
> |6
a video call): |v3
> |s
SCRIPT
    expect lessonrooms-query-text "<https://rooms.musikschule.example/ensemble>" "$ICAL" query --at 2026-12-17
    expect lessonrooms-query-json '"conferences": [{"label": "Join the lesson", "uri": "https://rooms.musikschule.example/ensemble"}' \
        "$ICAL" query --at 2026-12-17 --format json

    if [ "$MODE" = run ]; then
        # Every sandboxed run went through the broker this script started, and it still serves.
        if kill -0 "$BROKER" 2>/dev/null && grep -q "broker: serving org.openeventkit.samples.MonthlyEvents" "$WORK/broker.log"; then
            echo "samples: run broker ok"
        else
            echo "samples: run: the broker served no app, or ended:"
            cat "$WORK/broker.log"
            failures=$((failures + 1))
        fi
    fi
}

# The broker of a sandboxed store: started here (ical run would start one itself, ending 60 s
# after its last app) so that it is stopped when the script ends.
start_broker() {
    mkdir -p "$WORK/run/store"
    OPENEVENTKIT_STORE="$WORK/run/store" "$ICAL" broker --idle-timeout 600 --verbose > "$WORK/broker.log" 2>&1 &
    BROKER=$!
    BROKERS="$BROKERS $BROKER"
    tries=0
    until grep -q "broker: serving" "$WORK/broker.log"; do
        tries=$((tries + 1))
        if [ $tries -gt 200 ] || ! kill -0 "$BROKER" 2>/dev/null; then echo "samples: the broker did not start:"; cat "$WORK/broker.log"; exit 1; fi
        sleep 0.05
    done
}

MODES=${SAMPLES_MODES:-direct run}
for mode in $MODES; do
    if [ "$mode" = run ]; then
        status=0
        # Landlock is checked first: a missing manifest fails with 1 where it is there, with 78
        # (and a reason) where it is not; nothing runs either way.
        "$ICAL" run --app "$WORK/no-such-Info.plist" -- /bin/true > "$WORK/probe.txt" 2>&1 || status=$?
        if [ "$status" = 78 ]; then
            echo "== run: skipped, ical run cannot sandbox apps here:"
            cat "$WORK/probe.txt"
            continue
        fi
        start_broker
    fi
    scenario "$mode"
done

if [ "$failures" -ne 0 ]; then
    echo "samples: $failures check(s) failed"
    exit 1
fi
echo "samples: all checks passed"
