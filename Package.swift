// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenEventKit",
    products: [
        .library(name: "ICalKit", targets: ["ICalKit"]),
    ],
    targets: [
        // C
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"]), .brew(["libical"])]),

        // Libraries
        .target(
            name: "ICalKit",
            dependencies: ["CLibical"]),

        // Tools
        .executableTarget(
            name: "ICalFuzz",
            dependencies: ["ICalKit"],
            path: "Fuzz/ICalFuzz",
            exclude: ["ical.dict"]),

        // Tests
        .testTarget(
            name: "ICalKitTests",
            dependencies: ["ICalKit"],
            resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
