import Foundation
import ICalKit

/// The fixture corpus under `Fixtures/` (copied into the test bundle).
///
/// - `valid/`: files every reader must take without an error. `CANONICAL.txt` names the
///   ones already in ICalWriter's form (CRLF, folded at 75 octets, properties before
///   subcomponents); those must come back byte for byte. A `NAME.expected` beside a valid
///   file lists the warnings it must give (none when absent).
/// - `malformed/`: each `NAME.ics` has a `NAME.expected` listing the exact diagnostics,
///   one per line as `LINE SEVERITY CODE`.
enum Fixtures {
    static let root: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            preconditionFailure("API misuse: the test bundle has no Fixtures folder")
        }
        return url
    }()

    static func names(in folder: String, extension wanted: String = "ics") -> [String] {
        let url = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { ($0 as NSString).pathExtension == wanted }.sorted()
    }

    static var valid: [String] { names(in: "valid") }
    static var malformed: [String] { names(in: "malformed") }

    static func path(_ folder: String, _ name: String) -> String {
        root.appendingPathComponent(folder).appendingPathComponent(name).path
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(folder, name))))
    }

    /// The names listed in `valid/CANONICAL.txt`.
    static var canonical: Set<String> {
        let text = (try? String(contentsOfFile: path("valid", "CANONICAL.txt"), encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").map(String.init))
    }

    /// One expected diagnostic: `LINE SEVERITY CODE`.
    struct Expected: Hashable, CustomStringConvertible {
        var line: Int
        var severity: String
        var code: String

        init(line: Int, severity: String, code: String) {
            self.line = line
            self.severity = severity
            self.code = code
        }

        init(_ diagnostic: Diagnostic) {
            self.init(line: diagnostic.line, severity: diagnostic.severity.rawValue, code: diagnostic.code.rawValue)
        }

        var description: String { "\(line) \(severity) \(code)" }
    }

    /// The diagnostics `NAME.expected` lists for `NAME.ics`; nil when there is no such file.
    static func expected(_ folder: String, _ name: String) throws -> [Expected]? {
        let file = path(folder, (name as NSString).deletingPathExtension + ".expected")
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        let text = try String(contentsOfFile: file, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let number = Int(fields[0]) else {
                throw ICalError(.syntax, "bad line in \(file): '\(line)'")
            }
            return Expected(line: number, severity: String(fields[1]), code: String(fields[2]))
        }
    }
}

extension Component {
    /// Every UID in this tree, depth first, in order.
    var allUIDs: [String] {
        properties(.uniqueIdentifier).map(\.rawValue) + components.flatMap(\.allUIDs)
    }

    /// Every property in this tree, depth first.
    var allProperties: [Property] {
        properties + components.flatMap(\.allProperties)
    }

    /// The deepest nesting in this tree (this component counts 1).
    var depth: Int { 1 + (components.map(\.depth).max() ?? 0) }
}

/// Reads, writes and reads again; returns both reads and the written bytes.
struct RoundTrip {
    var first: ReadResult
    var written: [UInt8]
    var second: ReadResult

    init(_ bytes: [UInt8], reader: ICalReader = ICalReader()) throws {
        first = try reader.read(bytes)
        written = ICalWriter().bytes(first.calendars)
        second = try reader.read(written)
    }
}
