#!/bin/sh
# Builds the binary tarball of `make dist` from a built `ical`:
#
#   scripts/dist.sh ICAL openeventkit-VERSION-linux-ARCH.tar.gz
#
# One folder, openeventkit-VERSION/, laid out like an installation below a prefix (bin/,
# share/man/man1/, share/bash-completion/..., lib/systemd/user/; the units run
# /usr/local/bin/ical), with LICENSE, README.md, CHANGELOG.md and INSTALL beside it. The binary
# is the release build (Swift runtime linked in, scripts/release-flags.sh), stripped: it
# needs no Swift toolchain, only glibc and, when a command uses them, libical, libxml2 and
# libcurl (opened on first use).
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/dist.sh ICAL TARBALL" >&2; exit 64; }
ical="$1" tarball="$2"
name=$(basename "$tarball" .tar.gz)
folder=${name%-linux-*}
work=.build/dist
rm -rf "$work"
mkdir -p "$work"
PREFIX=/usr/local sh scripts/install.sh stage "$ical" "$work/$folder" /usr/local/bin
cp LICENSE README.md CHANGELOG.md "$work/$folder/"
cat > "$work/$folder/INSTALL" <<INSTALL
OpenEventKit's ical $(sed -n 's/^let icalVersion = "\(.*\)"$/\1/p' Sources/ical/Version.swift), built for Linux $(uname -m) with glibc $(getconf GNU_LIBC_VERSION | sed 's/glibc //') or later.

The folder is laid out like /usr/local. To install it there (the systemd units expect
/usr/local/bin/ical):

    sudo cp -R bin share lib /usr/local/

or run bin/ical from where it is. It needs no Swift toolchain. At run time it loads, when a
command first needs them: libical (recurrence rules), libxml2 (CalDAV), libcurl (CalDAV and
feeds) and libdbus-1 (desktop notifications of ical alarms watch), and reads time zones from
tzdata. On Debian and Ubuntu:

    sudo apt-get install libical3 libxml2 libcurl4 tzdata

(libical3t64 and libcurl4t64 on Debian 13 and Ubuntu 24.04.)

    man ical                                   the manual, one page per subcommand (man ical-query)
    systemctl --user enable --now ical-sync.timer   sync the store every 15 minutes
    systemctl --user enable --now ical-broker.service   keep the broker of ical run running (optional)
    systemctl --user enable --now ical-alarms.service   ring the store's alarms on the desktop
INSTALL
tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$tarball" "$folder"
echo "wrote $tarball ($(du -h "$tarball" | cut -f1))"
