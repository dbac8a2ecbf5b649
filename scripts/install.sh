#!/bin/sh
# What `make install`, `make uninstall` and `make dist` do with a built `ical`.
#
#   scripts/install.sh check               fail with a clear message when $DESTDIR$PREFIX is not writable
#   scripts/install.sh stage ICAL DIR      DIR/bin/ical (stripped), DIR/share/man/man1/ical*.1,
#                                          the bash, zsh and fish completions, DIR/lib/systemd/user/
#   scripts/install.sh install ICAL        stage, then copy the staged files into $DESTDIR$PREFIX
#   scripts/install.sh uninstall           remove exactly the files `install` writes
#
# Variables (the Makefile passes them): PREFIX (default /usr/local), DESTDIR (default empty),
# BINDIR_IN_UNITS (the folder the systemd units run `ical` from; default $PREFIX/bin).
#
# The manual pages are generated from the command definitions by swift-argument-parser's
# `generate-manual` tool, built from the package's own checkout of swift-argument-parser
# (scripts/manuals.sh); the completions are `ical --generate-completion-script SHELL`.
set -eu
cd "$(dirname "$0")/.."

PREFIX="${PREFIX:-/usr/local}"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX%/}"
target="$DESTDIR$PREFIX"

# The files below $PREFIX that `install` writes, apart from the manual pages (whose names come
# from the command tree: ical.1 and ical-COMMAND[-SUBCOMMAND].1).
fixed_files="bin/ical
share/bash-completion/completions/ical
share/zsh/site-functions/_ical
share/fish/vendor_completions.d/ical.fish
lib/systemd/user/ical-sync.service
lib/systemd/user/ical-sync.timer
lib/systemd/user/ical-broker.service
lib/systemd/user/ical-alarms.service"

fail() {
    echo "make $1: $2" >&2
    exit 1
}

# The nearest folder of a path that exists (the path itself when it does).
nearest_existing() {
    path="$1"
    while [ ! -e "$path" ] && [ ! -L "$path" ]; do
        path=$(dirname "$path")
    done
    echo "$path"
}

check() {
    action="$1"
    case "$PREFIX" in
        /*) ;;
        *) fail "$action" "PREFIX must be an absolute path, not '$PREFIX'." ;;
    esac
    existing=$(nearest_existing "$target")
    if [ ! -d "$existing" ]; then
        fail "$action" "cannot $action under $target: $existing is not a folder. Choose another PREFIX= or DESTDIR=."
    fi
    if [ ! -w "$existing" ]; then
        fail "$action" "no permission to write to $existing (PREFIX=$PREFIX${DESTDIR:+, DESTDIR=$DESTDIR}). Run it as a user who may write there (sudo make $action), or choose a folder of your own: make $action PREFIX=\$HOME/.local"
    fi
    for file in $fixed_files; do
        [ -e "$target/$file" ] || continue
        dir=$(dirname "$target/$file")
        [ -w "$dir" ] || fail "$action" "no permission to write to $dir. Run it as a user who may (sudo make $action), or choose another PREFIX=."
    done
}

# Copies a binary without its symbols and debug information: binutils' strip, else LLVM's
# (llvm-strip, or llvm-objcopy, which the Swift toolchain ships).
strip_copy() {
    for tool in "${STRIP:-}" strip llvm-strip; do
        [ -n "$tool" ] && command -v "$tool" >/dev/null 2>&1 && { "$tool" --strip-all -o "$2" "$1"; return; }
    done
    for tool in objcopy llvm-objcopy; do
        command -v "$tool" >/dev/null 2>&1 && { "$tool" --strip-all "$1" "$2"; return; }
    done
    echo "scripts/install.sh: no strip tool (strip, llvm-strip, objcopy or llvm-objcopy) found" >&2
    exit 1
}

stage() {
    ical="$1" dir="$2" bindir="$3"
    [ -x "$ical" ] || { echo "scripts/install.sh: no executable ical at $ical (make release builds it)" >&2; exit 1; }
    rm -rf "$dir"
    mkdir -p "$dir/bin" "$dir/share/man/man1" "$dir/share/bash-completion/completions" \
        "$dir/share/zsh/site-functions" "$dir/share/fish/vendor_completions.d" "$dir/lib/systemd/user"
    strip_copy "$ical" "$dir/bin/ical"
    chmod 755 "$dir/bin/ical"
    sh scripts/manuals.sh "$dir/bin/ical" "$dir/share/man/man1"
    "$dir/bin/ical" --generate-completion-script bash > "$dir/share/bash-completion/completions/ical"
    "$dir/bin/ical" --generate-completion-script zsh > "$dir/share/zsh/site-functions/_ical"
    "$dir/bin/ical" --generate-completion-script fish > "$dir/share/fish/vendor_completions.d/ical.fish"
    sed "s|@BINDIR@|$bindir|g" dist/systemd/ical-sync.service.in > "$dir/lib/systemd/user/ical-sync.service"
    cp dist/systemd/ical-sync.timer "$dir/lib/systemd/user/ical-sync.timer"
    sed "s|@BINDIR@|$bindir|g" dist/systemd/ical-broker.service.in > "$dir/lib/systemd/user/ical-broker.service"
    sed "s|@BINDIR@|$bindir|g" dist/systemd/ical-alarms.service.in > "$dir/lib/systemd/user/ical-alarms.service"
    chmod 644 "$dir"/share/man/man1/* "$dir"/share/*/*/ical "$dir"/share/*/*/_ical "$dir"/share/*/*/ical.fish \
        "$dir"/lib/systemd/user/*
}

# Manual pages this project installed: ical.1 and ical-*.1 made by swift-argument-parser's
# generator (a page of that name from elsewhere is left alone).
installed_manuals() {
    for page in "$target/share/man/man1/ical.1" "$target"/share/man/man1/ical-*.1; do
        [ -f "$page" ] && grep -q 'swift-argument-parser' "$page" && echo "$page"
    done
    return 0
}

case "${1:-}" in
    check)
        check "${2:-install}"
        ;;
    stage)
        [ $# -ge 3 ] || { echo "usage: scripts/install.sh stage ICAL DIR [BINDIR]" >&2; exit 64; }
        stage "$2" "$3" "${4:-$PREFIX/bin}"
        ;;
    install)
        [ $# -ge 2 ] || { echo "usage: scripts/install.sh install ICAL" >&2; exit 64; }
        check install
        staging=".build/install-staging"
        stage "$2" "$staging" "${BINDIR_IN_UNITS:-$PREFIX/bin}"
        (cd "$staging" && find . -type f | sed 's|^\./||' | sort) | while read -r file; do
            mode=644
            [ "$file" = bin/ical ] && mode=755
            install -D -m "$mode" "$staging/$file" "$target/$file"
            echo "installed $target/$file"
        done
        rm -rf "$staging"
        ;;
    uninstall)
        check uninstall
        for file in $fixed_files; do
            if [ -e "$target/$file" ] || [ -L "$target/$file" ]; then
                rm -f "$target/$file" && echo "removed $target/$file"
            fi
        done
        for page in $(installed_manuals); do
            rm -f "$page" && echo "removed $page"
        done
        ;;
    *)
        echo "usage: scripts/install.sh check|stage|install|uninstall ..." >&2
        exit 64
        ;;
esac
