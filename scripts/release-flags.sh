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
ICAL_RELEASE_FLAGS="-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors"
