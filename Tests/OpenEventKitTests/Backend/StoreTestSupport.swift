import Foundation
import ICalKit
@testable import OpenEventKit

/// A fresh folder under the system's temporary folder (never $HOME), removed by `remove()`.
struct StoreFolder {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("oek-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file (creating folders), returning its path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

/// Every file under a folder (relative path to bytes), `.openeventkit` left out.
func storeTree(_ root: String, includeMetadata: Bool = false) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let manager = FileManager.default
    guard let enumerator = manager.enumerator(atPath: root) else { return result }
    while let relative = enumerator.nextObject() as? String {
        if !includeMetadata && (relative == ".openeventkit" || relative.hasPrefix(".openeventkit/")) { continue }
        var isFolder: ObjCBool = false
        let path = root + "/" + relative
        if manager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            result[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
    return result
}

/// A VCALENDAR with one event.
func eventCalendar(uid: String, summary: String = "Lesson") -> Component {
    var calendar = Component.calendar(productIdentifier: "-//OpenEventKit//tests//EN")
    calendar.addComponent(Component(kind: .event, properties: [
        Property(.uniqueIdentifier, rawValue: uid),
        Property(name: "DTSTAMP", rawValue: "20260101T000000Z"),
        Property(.dateTimeStart, rawValue: "20270301T090000Z"),
        Property(.summary, rawValue: summary),
    ]))
    return calendar
}

/// SplitMix64: a seeded generator, so the crash trials are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The `store-stress` executable built beside the tests.
enum StoreStress {
    static let executable: String = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("store-stress")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            folder = folder.deletingLastPathComponent()
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/store-stress").path
    }()

    /// Starts `store-stress` with arguments; output goes to pipes read by `finish`.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        return process
    }

    /// Runs `store-stress` to the end; returns its exit status and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = try start(arguments)
        let data = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
