#!/bin/sh
# Writes `ical`'s manual pages into a folder: ical.1 and one page per subcommand
# (ical-query.1, ical-ui-edit-event.1, ...), generated from the command definitions by
# swift-argument-parser's `generate-manual` tool (the one its `generate-manual` plugin runs),
# built from the package's own checkout of swift-argument-parser.
#
#   scripts/manuals.sh ICAL FOLDER
#
# The generator names a subcommand's page after its command path with dots (ical.query.1);
# the pages are renamed with hyphens, as `man ical-query` finds them (git's convention), and
# their titles and cross-references follow; the footer names OpenEventKit and its version.
# The date on the pages is the date of the last commit (else today), so the same sources give
# the same pages.
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/manuals.sh ICAL FOLDER" >&2; exit 64; }
ical="$1" out="$2"
SWIFT="${SWIFT:-swift}"

checkout=.build/checkouts/swift-argument-parser
[ -f "$checkout/Package.swift" ] || "$SWIFT" package resolve >/dev/null
# Its own scratch folder: no lock shared with a build or test of the package running meanwhile.
scratch=.build/generate-manual
"$SWIFT" build --package-path "$checkout" --scratch-path "$scratch" --product generate-manual \
    >"$scratch.log" 2>&1 || { cat "$scratch.log" >&2; exit 1; }
generator="$scratch/debug/generate-manual"

date=$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)
version=$(sed -n 's/^let icalVersion = "\(.*\)"$/\1/p' Sources/ical/Version.swift)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" "$ical" --multi-page --date "$date" --output-directory "$work"
mkdir -p "$out"
for page in "$work"/*.1; do
    name=$(basename "$page" .1 | tr . -)
    # .Dt ICAL.QUERY 1 -> ICAL-QUERY; .Xr ical.query 1 -> ical-query; the blank lines of the
    # help's paragraphs -> .Pp (mdoc's paragraph break; groff warns of an empty line).
    sed -e "s/^\.Os\$/.Os OpenEventKit $version/" -e '/^\.Dt /s/\([A-Z0-9]\)\.\([A-Z0-9]\)/\1-\2/g' -e 's/^$/.Pp/' \
        -e '/^\.Xr /s/\([a-z0-9-]\)\.\([a-z0-9]\)/\1-\2/g' "$page" > "$out/$name.1"
done
