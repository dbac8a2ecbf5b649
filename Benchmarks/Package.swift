// swift-tools-version:6.0
// Benchmarks for OpenEventKit. A separate package, so nothing used only by benchmarks ever
// enters the dependency graph of ICalKit's users. Run with `make bench` from the top folder.
import PackageDescription

let package = Package(
    name: "OpenEventKitBenchmarks",
    dependencies: [
        .package(name: "OpenEventKit", path: ".."),
    ],
    targets: [
        // Writes seeded, reproducible calendars (`ical-generate --events N --seed S -o FILE`).
        .executableTarget(
            name: "ical-generate",
            path: "Sources/ical-generate"),

        // Measures one ICalKit operation on one file in this process (`ical-bench CASE FILE`).
        .executableTarget(
            name: "ical-bench",
            dependencies: [.product(name: "ICalKit", package: "OpenEventKit")],
            path: "Sources/ical-bench"),
    ],
    swiftLanguageModes: [.v6]
)
