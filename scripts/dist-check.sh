#!/bin/sh
# Checks the tarball of `make dist` the way a machine without Swift would run it: unpacks it
# into a temporary folder and runs its `ical` on the sample calendars with the Swift
# toolchain's folder hidden under an empty tmpfs (a private mount namespace: needs root, or
# an unprivileged user namespace), after checking that it links no library from the toolchain.
#
#   scripts/dist-check.sh openeventkit-VERSION-linux-ARCH.tar.gz
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/dist-check.sh TARBALL" >&2; exit 64; }
tarball=$(readlink -f "$1")
[ -f "$tarball" ] || { echo "dist-check: no $1 (make dist builds it)" >&2; exit 1; }
swift=$(command -v swift || true)
toolchain=${TOOLCHAIN:-$(dirname "$(dirname "$(dirname "$(readlink -f "${swift:-/opt/swift/usr/bin/swift}")")")")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball"
root=$(echo "$work"/openeventkit-*)
for file in bin/ical share/man/man1/ical.1 share/man/man1/ical-query.1 \
    share/bash-completion/completions/ical share/zsh/site-functions/_ical \
    share/fish/vendor_completions.d/ical.fish lib/systemd/user/ical-sync.service \
    lib/systemd/user/ical-sync.timer lib/systemd/user/ical-broker.service lib/systemd/user/ical-alarms.service LICENSE README.md CHANGELOG.md INSTALL; do
    [ -f "$root/$file" ] || { echo "dist-check: $file is missing from the tarball" >&2; exit 1; }
done
if file "$root/bin/ical" 2>/dev/null | grep -q 'not stripped'; then
    echo "dist-check: bin/ical is not stripped" >&2; exit 1
fi
if ldd "$root/bin/ical" | grep -F "$toolchain"; then
    echo "dist-check: bin/ical links libraries from the Swift toolchain ($toolchain)" >&2; exit 1
fi
cp -R samples/calendars "$work/calendars"

# The commands, run with the toolchain out of reach.
cat > "$work/run.sh" <<RUN
set -eu
[ ! -e "$toolchain/usr/bin/swift" ] || { echo "dist-check: the toolchain is still visible" >&2; exit 1; }
! command -v swift >/dev/null 2>&1 || { echo "dist-check: swift is still on PATH" >&2; exit 1; }
cd "$work"
export TZ=UTC LC_ALL=C.UTF-8 HOME="$work/home" OPENEVENTKIT_STORE="$work/store"
ical="$root/bin/ical"
"\$ical" --version
"\$ical" validate calendars/
"\$ical" lessons --spec calendars/term.yaml -o term.ics
"\$ical" query --at 2026-12 --tz Europe/Berlin term.ics calendars/monthly-events.ics > /dev/null
"\$ical" convert calendars/outlook-export.ics --repair -o fixed.ics
"\$ical" convert term.ics --to jcal > /dev/null
"\$ical" view month 2026-12 --tz Europe/Berlin term.ics > /dev/null
"\$ical" privacy grant org.openeventkit.ical --events full > /dev/null
"\$ical" import term.ics
"\$ical" query --at 2026-12 --format json > /dev/null
echo "dist-check: bin/ical ran on the samples without the Swift toolchain"
RUN
hide="mount -t tmpfs none '$toolchain' && PATH=/usr/bin:/bin sh '$work/run.sh'"
if [ "$(id -u)" -eq 0 ]; then
    unshare -m sh -c "$hide"
else
    unshare -r -m sh -c "$hide"
fi
