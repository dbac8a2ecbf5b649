#!/bin/sh
# Installs what only the tests need when it is missing: Debian's chromium, which renders the
# printable timetable of `ical view --format html` to PNG in ViewBrowserTests. Same way as
# deps.sh: as root apt-get directly, otherwise through sudo; apt-get update, then install,
# retried once.
set -u

command -v chromium >/dev/null 2>&1 && exit 0
missing="chromium"

echo "test-deps: installing $missing" >&2
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "test-deps: need root to install $missing (run: apt-get install -y $missing)" >&2
    exit 1
fi

install() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

if ! install; then
    echo "test-deps: apt-get failed, retrying once" >&2
    sleep 3
    install || { echo "test-deps: could not install $missing" >&2; exit 1; }
fi
