#!/bin/sh
# Installs what the build needs when it is missing: libical-dev, libsqlite3-dev (for GRDB,
# the store's query index), libcurl4-openssl-dev (the CalDAV client), libxml2 (its WebDAV
# responses; opened with dlopen, so only the library), tzdata, pkg-config, and script and
# setsid for the samples' checks.
# As root it runs apt-get directly; otherwise through sudo when sudo is there.
# apt-get sometimes fails transiently (a dpkg archive it cannot read): retry once.
set -u

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libical 2>/dev/null; then
    [ -f /usr/include/libical/ical.h ] || missing="$missing libical-dev"
fi
[ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
# libcurl (with its headers) for the CalDAV and feed client (OpenEventKit's HTTPFunnel).
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libcurl 2>/dev/null; then
    missing="$missing libcurl4-openssl-dev"
fi
# libxml2 reads WebDAV responses (CLibxml2, opened with dlopen: no headers needed).
/sbin/ldconfig -p 2>/dev/null | grep -q 'libxml2\.so\.2 ' || missing="$missing libxml2"
[ -f /usr/share/zoneinfo/zone.tab ] || missing="$missing tzdata"
# script(1) and setsid(1) run the samples on a pseudo-terminal and without one (make samples).
command -v script >/dev/null 2>&1 || missing="$missing bsdutils"
command -v setsid >/dev/null 2>&1 || missing="$missing util-linux"

# Packages named as arguments are installed when no command of that name is found
# (make test: chromium and python3, for the browser test of `ical view --format html`; dunst,
# Xvfb and dbus-daemon, for the desktop notification tests' private session). An argument
# `command:package` installs `package` when `command` is missing (Xvfb:xvfb). A command that
# starts with / is a path checked for an executable file, for programs that are not on PATH
# (/usr/lib/cyrus/bin/httpd:cyrus-caldav, for the scheduling tests' Cyrus server).
for argument in "$@"; do
    command=${argument%%:*}
    package=${argument#*:}
    case "$command" in
        /*) [ -x "$command" ] || missing="$missing $package" ;;
        *) command -v "$command" >/dev/null 2>&1 || missing="$missing $package" ;;
    esac
done

[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "deps: need root to install$missing (run: apt-get install -y$missing)" >&2
    exit 1
fi

install() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
}

if ! install; then
    echo "deps: apt-get failed, retrying once" >&2
    sleep 3
    install || { echo "deps: could not install$missing" >&2; exit 1; }
fi
