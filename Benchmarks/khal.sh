# khal for the benchmarks, sourced by store.sh and query-floor.sh (which set `here`, `say`,
# PYTHON and KHAL_ENABLED first). khal goes into a venv of its own (bench-only),
# work/khal-venv, and reads floating times in UTC like every other contender.

KHAL_VENV="$here/work/khal-venv"
KHAL="$KHAL_VENV/bin/khal"

# khal_install NAME: installs khal when missing; khal_note says why khal is skipped, if it is.
khal_install() {
    khal_note=""
    if [ "$KHAL_ENABLED" != 1 ]; then
        khal_note="khal skipped: BENCH_KHAL=0."
    elif ! "$KHAL" --version >/dev/null 2>&1; then
        say "$1: installing khal (bench-only) into work/khal-venv"
        if ! { [ -x "$KHAL_VENV/bin/python" ] || "$PYTHON" -m venv "$KHAL_VENV" >&2; } ||
           ! "$KHAL_VENV/bin/python" -m pip install --quiet --disable-pip-version-check khal >&2 ||
           ! "$KHAL" --version >/dev/null 2>&1; then
            khal_note="khal skipped: pip could not install it into work/khal-venv."
        fi
    fi
    if [ -n "$khal_note" ]; then say "$1: $khal_note"; fi
}

khal_ok() { [ -z "$khal_note" ]; }

# khal_write_config DIR FOLDER...: a khal configuration over the collection folders, its cache
# in DIR/cache.db, written to DIR/config; prints that path.
khal_write_config() {
    dir=$1
    shift
    mkdir -p "$dir"
    {
        echo "[calendars]"
        for folder in "$@"; do
            printf '[[%s]]\npath = %s\ntype = calendar\n' "$(basename "$folder")" "$folder"
        done
        printf '[sqlite]\npath = %s/cache.db\n' "$dir"
        printf '[locale]\nlocal_timezone = UTC\ndefault_timezone = UTC\ntimeformat = %%H:%%M\ndateformat = %%Y-%%m-%%d\n'
        printf 'longdateformat = %%Y-%%m-%%d\ndatetimeformat = %%Y-%%m-%%d %%H:%%M\nlongdatetimeformat = %%Y-%%m-%%d %%H:%%M\n'
        printf '[default]\ndefault_calendar = %s\n' "$(basename "$1")"
    } >"$dir/config"
    printf '%s\n' "$dir/config"
}
