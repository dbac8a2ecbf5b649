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
ICAL_RELEASE_FLAGS="--static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors"
