// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenEventKit",
    products: [
        .library(name: "ICalKit", targets: ["ICalKit"]),
        .library(name: "OpenEventKit", targets: ["OpenEventKit"]),
        .library(name: "OpenEventKitUI", targets: ["OpenEventKitUI"]),
        .library(name: "OpenEventKitIntents", targets: ["OpenEventKitIntents"]),
        .executable(name: "ical", targets: ["ical"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // C
        .systemLibrary(
            name: "CLibical",
            // libical's headers only: the library itself (libical.so.3 alone, not libicalss or
            // libicalvcal) is opened with dlopen by ICalKit's funnel on its first call (shim.h),
            // so a process that never expands a rule with it maps neither it nor ICU. The
            // headers are in the standard include path (Debian's libical-dev:
            // /usr/include/libical).
            providers: [.apt(["libical-dev"]), .brew(["libical"])]),
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        // libxml2's reader, loaded with dlopen by the first WebDAV response read (shim.h
        // declares the few functions used; no headers are needed to build).
        .systemLibrary(
            name: "CLibxml2",
            providers: [.apt(["libxml2"]), .brew(["libxml2"])]),
        // libdbus-1, loaded with dlopen by the first desktop notification (shim.h declares the
        // few functions used; no headers are needed to build).
        .systemLibrary(
            name: "CDBus",
            providers: [.apt(["libdbus-1-3"])]),
        // One call of sqlite3_config (variadic, which Swift cannot call) for `ical`'s
        // one-shot processes; SQLite is GRDB's (GRDBSQLite).
        .systemLibrary(name: "CSQLiteConfig"),
        // Landlock, capabilities and the sandboxed launch (fork, restrict, exec), in C: what
        // runs between fork and exec must be async-signal-safe.
        .target(name: "CLandlock"),

        // Libraries
        .target(
            name: "ICalKit",
            dependencies: [
                "CLibical",
                .product(name: "Yams", package: "Yams"),
            ]),
        .target(
            name: "OpenEventKit",
            dependencies: [
                "ICalKit",
                "CCurl",
                "CLibxml2",
                "CDBus",
                "CSQLiteConfig",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(
            name: "OpenEventKitUI",
            dependencies: ["OpenEventKit", "ICalKit"]),
        .target(
            name: "OpenEventKitIntents",
            dependencies: ["OpenEventKit"]),
        // The trusted side: the sandbox of `ical run` and the broker that owns the store.
        .target(
            name: "OpenEventKitBroker",
            dependencies: ["OpenEventKit", "ICalKit", "CLandlock"]),

        // Tools
        .executableTarget(
            name: "ical",
            dependencies: [
                "ICalKit",
                "OpenEventKit",
                "OpenEventKitBroker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Tools
        .executableTarget(
            name: "ICalFuzz",
            dependencies: ["ICalKit"],
            path: "Fuzz/ICalFuzz",
            exclude: ["ical.dict"]),

        .executableTarget(
            name: "store-stress",
            dependencies: ["OpenEventKit", "ICalKit"],
            path: "Tests/StoreStress"),

        // A hostile app for `ical run` (Tests/CLITests/HostileAppTests.swift): it tries to
        // escape the sandbox and the broker's checks, and prints one line per attempt.
        .target(name: "CHostile", path: "Tests/HostileAppC"),
        .executableTarget(
            name: "hostile-app",
            dependencies: ["OpenEventKit", "CLandlock", "CHostile"],
            path: "Tests/HostileApp",
            exclude: ["Info.plist"]),

        .executableTarget(
            name: "store-bench",
            dependencies: ["OpenEventKit", "ICalKit", "OpenEventKitBroker"],
            path: "Tests/StoreBench"),
        // Samples: Apple's "Accessing Calendar using EventKit and EventKitUI", on a terminal
        // (not products; `make samples` runs them).
        .executableTarget(
            name: "DropInLessons",
            dependencies: ["ICalKit", "OpenEventKit", "OpenEventKitUI"],
            path: "samples/DropInLessons",
            exclude: ["Info.plist"]),
        .executableTarget(
            name: "RepeatingLessons",
            dependencies: ["ICalKit", "OpenEventKit", "OpenEventKitUI"],
            path: "samples/RepeatingLessons",
            exclude: ["Info.plist"]),
        .executableTarget(
            name: "LessonRooms",
            dependencies: ["OpenEventKit"],
            path: "samples/LessonRooms",
            exclude: ["Info.plist"]),
        .executableTarget(
            name: "MonthlyEvents",
            dependencies: ["OpenEventKit", "OpenEventKitUI"],
            path: "samples/MonthlyEvents",
            exclude: ["Info.plist"]),

        // Tests
        .testTarget(
            name: "ICalKitTests",
            dependencies: ["ICalKit"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "OpenEventKitTests",
            dependencies: [
                "OpenEventKit",
                "OpenEventKitBroker",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "OpenEventKitBrokerTests",
            dependencies: ["OpenEventKitBroker", "OpenEventKit", "ICalKit"]),
        .testTarget(
            name: "OpenEventKitUITests",
            dependencies: ["OpenEventKitUI", "OpenEventKit"]),
        .testTarget(
            name: "SeedCodeTests",
            dependencies: ["OpenEventKit", "OpenEventKitIntents"]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "ICalKit", "OpenEventKit", "OpenEventKitBroker", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Expected"]),
    ],
    swiftLanguageModes: [.v6]
)
