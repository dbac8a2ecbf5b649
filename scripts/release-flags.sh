# Sourced by the Makefile's `release` target and the benchmarks: the flags the shipped `ical`
# is built with (`swift build -c release $ICAL_RELEASE_FLAGS`).
#
# -disable-concrete-type-metadata-mangled-name-accessors: the compiler otherwise reaches the
# metadata of a concrete generic type (a `Set<ComponentKind>`, a `Dictionary<String, String>`)
# through its mangled name, which the runtime demangles and whose conformances it looks up by
# scanning every loaded library's conformance records: about half a million instructions for
# each new type, some twenty on a warm store query. With direct accessors that start costs
# nothing: 45.5 M -> 36.4 M instructions for a warm month of a 1,000-event store (see
# Benchmarks/README.md, "Third pass"). The binary is 0.1 MB larger; the output is the same.
# A frontend option, so it is passed on the command line rather than in Package.swift (whose
# unsafe flags would stop other packages from depending on this one).
#
# --static-swift-stdlib: the Swift runtime, Foundation and ICU are linked into the binary, so
# a start no longer maps and relocates a dozen libraries by symbol name (about 20 M
# instructions, more than a warm 1,000-event query's own work): `ical --version` 29.9 M ->
# 15.4 M instructions and about 18 -> 9 ms of CPU, the warm 1,000-event month 36.4 M ->
# 21.7 M and about 21 -> 12 ms. The binary needs no Swift toolchain to run. Cost: 69 MB
# stripped (111 MB with debug information) instead of 15.5 MB (39.5 MB) plus the toolchain's
# libraries, and a release build of about 9 minutes of CPU instead of 4 on two cores.
#
# -Xlinker --no-export-dynamic: the Swift driver exports every symbol of the package's own
# code from an executable (some 14,500), which nothing looks up; at each start the runtime's
# backtracer calls dladdr, which scans them all (0.48 M instructions of a 10.7 M warm query).
#
# --disable-local-rpath: no `$ORIGIN` run path, which the binary (the package's modules all
# linked in) does not use; with it the loader first looked for libc, libm and libgcc_s in
# `ical`'s own folder and its `glibc-hwcaps`, `tls` and `x86_64` subfolders (some twenty
# failed `openat` and `stat` calls at every start).
#
# SQLite and libstdc++ from their static archives (libsqlite3-dev's libsqlite3.a, GCC's
# libstdc++.a), when they are there: a folder holding only links to them is searched before
# the system's folders, so `-lsqlite3` and `-lstdc++` find the archives. Their shared
# libraries were bound symbol by symbol at every start (1,596 and 1,737 symbol lookups, about
# 2 M instructions, and their pages): `ical --version` 12.8 M -> 9.5 M instructions. The
# licences allow it (SQLite is in the public domain; libstdc++ has GCC's runtime library
# exception). libical and libxml2, opened with dlopen on first use, keep their own shared
# libstdc++. Without an archive the shared library is linked as before.
# ICAL_PACKAGE_ROOT (default: the current folder, the package's root for the Makefile) says
# where the folder goes: .build/static-archives.
ical_archives="${ICAL_PACKAGE_ROOT:-$(pwd)}/.build/static-archives"
ical_archive_flags=""
for ical_archive in libsqlite3.a libstdc++.a; do
    ical_archive_path=""
    for ical_cc in "${CC:-cc}" clang gcc; do
        command -v "$ical_cc" >/dev/null 2>&1 || continue
        ical_archive_path=$("$ical_cc" -print-file-name="$ical_archive" 2>/dev/null)
        [ -f "$ical_archive_path" ] && break
        ical_archive_path=""
    done
    [ -n "$ical_archive_path" ] || continue
    mkdir -p "$ical_archives" && ln -sf "$ical_archive_path" "$ical_archives/$ical_archive" && ical_archive_flags="-Xswiftc -L$ical_archives"
done

# -function-sections, and with LLVM's linker (lld, shipped with the Swift toolchain) the
# functions a start and a warm query run placed together (scripts/ical.order; regenerate it
# with scripts/order-symbols.sh): the binary's text is 23 MB, of which a warm query runs
# about 1.3 MB, and each first touch of a 64 KiB stretch of it is a page fault. Without
# function sections the package's code is one section per source file, which the linker
# can only move whole. lld also packs the 96,000 relative relocations (2.3 MB of `.rela.dyn`
# that the loader read at every start) into 18 KB of `.relr.dyn` (`-z pack-relative-relocs`,
# which needs glibc 2.36's loader). Both measured in Benchmarks/README.md ("Seventh pass"):
# `ical --version` 7.6 -> 6.5 ms and a warm 1,000-event query 10.5 -> 9.1 ms in the same
# rounds. Names the order file lists that the code no longer has are skipped; without lld
# (or with an older glibc) the binary is linked as before.
ical_link_flags="-Xswiftc -Xfrontend -Xswiftc -function-sections"
ical_swiftc=$(command -v "${SWIFTC:-swiftc}" 2>/dev/null || true)
ical_root="${ICAL_PACKAGE_ROOT:-$(pwd)}"
if [ -n "$ical_swiftc" ] && [ -x "$(dirname "$(readlink -f "$ical_swiftc")")/ld.lld" ]; then
    ical_link_flags="$ical_link_flags -Xswiftc -use-ld=lld"
    [ -f "$ical_root/scripts/ical.order" ] &&
        ical_link_flags="$ical_link_flags -Xlinker --symbol-ordering-file=$ical_root/scripts/ical.order -Xlinker --no-warn-symbol-ordering"
    ical_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc 2\.\([0-9][0-9]*\).*/\1/p')
    [ -n "$ical_glibc" ] && [ "$ical_glibc" -ge 36 ] &&
        ical_link_flags="$ical_link_flags -Xlinker -z -Xlinker pack-relative-relocs"
fi
ICAL_RELEASE_FLAGS="--static-swift-stdlib --disable-local-rpath -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors -Xlinker --no-export-dynamic $ical_archive_flags $ical_link_flags"
unset ical_archives ical_archive_flags ical_archive ical_archive_path ical_cc ical_link_flags ical_swiftc ical_root ical_glibc
