#!/bin/sh
# Builds the DocC catalogs with the toolchain's own docc (no plugin dependency):
# symbol graphs from `swift build`, then `docc convert` per module into .build/docs/.
set -eu
cd "$(dirname "$0")/.."
swift build -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc .build/symbol-graphs >/dev/null
DOCC="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$DOCC" ] || DOCC=docc
for module in $(ls -d Sources/*/*.docc 2>/dev/null | sed 's|Sources/\([^/]*\)/.*|\1|'); do
    mkdir -p .build/docs .build/symbol-graphs/$module
    cp .build/symbol-graphs/$module.*symbols.json .build/symbol-graphs/$module/ 2>/dev/null || true
    "$DOCC" convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.openeventkit.$module" \
        --additional-symbol-graph-dir ".build/symbol-graphs/$module" \
        --output-path ".build/docs/$module.doccarchive" --analyze 2>&1 | grep -v '^$' || true
    echo "docs: .build/docs/$module.doccarchive"
done
