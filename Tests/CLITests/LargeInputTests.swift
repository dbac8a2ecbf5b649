import Foundation
import Testing

/// Inputs past the old whole-read limit of 256 MiB, made on the fly: `ical query` reads a
/// 300 MB file and the same bytes from a pipe, answers, and its peak memory (the child's
/// VmHWM, its high-water mark since its exec) stays under a bound far below the file's size.
@Suite(.serialized) struct LargeInputTests {
    /// A hundred events of 3 MB each (a folded DESCRIPTION of three million bytes, under
    /// the 4 MiB line limit): three in March 2026, the rest in 2025.
    static let eventCount = 100

    static func generate(_ write: (Data) throws -> Void) throws {
        let description = "DESCRIPTION:" + String(repeating: "x", count: 3_000_000)
        var folded = String(description.prefix(75))
        var rest = description.dropFirst(75)
        while !rest.isEmpty {
            folded += "\r\n " + rest.prefix(74)
            rest = rest.dropFirst(74)
        }
        let body = Data((folded + "\r\n").utf8)
        try write(Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//OpenEventKit//Tests//EN\r\n".utf8))
        for index in 0..<eventCount {
            let day = index < 3 ? String(format: "202603%02d", index + 1) : String(format: "2025%02d%02d", index % 12 + 1, index % 28 + 1)
            try write(Data("BEGIN:VEVENT\r\nUID:big-\(index)@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:\(day)T100000Z\r\nDURATION:PT1H\r\nSUMMARY:Event \(index)\r\n".utf8))
            try write(body)
            try write(Data("END:VEVENT\r\n".utf8))
        }
        try write(Data("END:VCALENDAR\r\n".utf8))
    }

    /// The three March events, as `ical query` lists them.
    static let expected = ["Event 0", "Event 1", "Event 2"]

    /// Runs `ical` in a folder of its own (HOME and TMPDIR there, where standard input's copy
    /// goes) and returns its status, standard output and peak memory in bytes.
    static func run(_ arguments: [String], generating: Bool = false) throws -> (status: Int32, stdout: String, peak: Int) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["TZ": "UTC", "LC_ALL": "C.UTF-8", "HOME": folder.path, "TMPDIR": folder.path,
                           "PATH": "/usr/bin:/bin", "ICAL_NOW": "2026-11-22T10:00:00"]
        let result = try PeakMemory.run(arguments, environment: environment,
                                        input: generating ? .generated { try generate($0) } : .none,
                                        stdoutFile: folder.appendingPathComponent("out.txt").path)
        return (result.status, result.stdout, result.peak)
    }

    /// The bound: the process itself (code and libraries, about 45 MB in a debug build),
    /// one 3 MB component and the parts the stream reads, with room to spare; a whole read
    /// of the file would take five times its 300 MB.
    static let peakBound = 160 << 20

    @Test func aFilePastTheOldLimitIsQueriedInBoundedMemory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("large-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.ics").path
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try Self.generate { try handle.write(contentsOf: $0) }
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 256 << 20)

        let result = try Self.run(["query", path, "--between", "2026-03-01", "2026-04-01", "--memory", "32M"])
        #expect(result.status == 0)
        #expect(Self.expected.allSatisfy { result.stdout.contains($0) })
        #expect(!result.stdout.contains("Event 3"))
        #expect(result.peak > 8 << 20 && result.peak < Self.peakBound, "peak \(result.peak >> 20) MiB")
    }

    @Test func standardInputPastTheOldLimitIsQueriedInBoundedMemory() throws {
        let result = try Self.run(["query", "-", "--between", "2026-03-01", "2026-04-01", "--memory", "32M"], generating: true)
        #expect(result.status == 0)
        #expect(Self.expected.allSatisfy { result.stdout.contains($0) })
        #expect(result.peak > 8 << 20 && result.peak < Self.peakBound, "peak \(result.peak >> 20) MiB")
    }
}
