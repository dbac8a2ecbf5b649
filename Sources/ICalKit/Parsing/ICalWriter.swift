/// Writes ``Component`` trees as iCalendar text: CRLF line ends, lines folded at 75
/// octets without splitting a UTF-8 character, properties before subcomponents, and
/// every name, parameter and value exactly as the tree holds it.
///
/// Output is deterministic: the same tree always gives the same bytes. For input that is
/// already canonical (CRLF, folded at 75 octets, properties before subcomponents) reading
/// and writing gives back the input byte for byte. The writer never adds libical's private
/// TZID prefixes: values are written as the tree holds them.
///
/// See RFC 5545 §3.1 (content lines and folding).
public struct ICalWriter: Sendable {
    /// The longest line written, in octets, not counting CRLF (RFC 5545 §3.1 says 75).
    public var lineLength: Int

    /// Creates a writer.
    public init(lineLength: Int = 75) {
        precondition(lineLength >= 5, "API misuse: a line length below 5 octets cannot hold a folded line")
        self.lineLength = lineLength
    }

    /// The bytes of several components (usually VCALENDARs), one after another.
    public func bytes(_ components: [Component]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        for component in components { append(component, to: &output) }
        return output
    }

    /// The bytes of one component.
    public func bytes(_ component: Component) -> [UInt8] { bytes([component]) }

    /// The text of several components.
    public func string(_ components: [Component]) -> String {
        String(decoding: bytes(components), as: UTF8.self)
    }

    /// The text of one component.
    public func string(_ component: Component) -> String { string([component]) }

    /// Writes components to a file atomically (temporary file, fsync, rename); `-` is
    /// standard output.
    public func write(_ components: [Component], toFile path: String) throws(ICalError) {
        try FileIO.writeAtomically(bytes(components), to: path)
    }

    /// Appends one component's lines to `output`.
    public func append(_ component: Component, to output: inout [UInt8]) {
        appendLine(to: &output) { line in
            line.append(contentsOf: "BEGIN:".utf8)
            line.append(contentsOf: component.name.utf8)
        }
        for property in component.properties { append(property, to: &output) }
        for child in component.components { append(child, to: &output) }
        appendLine(to: &output) { line in
            line.append(contentsOf: "END:".utf8)
            line.append(contentsOf: component.name.utf8)
        }
    }

    /// Appends one property's content line, folded.
    public func append(_ property: Property, to output: inout [UInt8]) {
        appendLine(to: &output) { line in
            appendHead(of: property, to: &line)
            line.append(contentsOf: property.rawValue.utf8)
        }
    }

    /// Appends what a property's unfolded content line holds before its value: the name,
    /// the parameters and the colon.
    func appendHead(of property: Property, to line: inout [UInt8]) {
        line.append(contentsOf: property.name.utf8)
        for parameter in property.parameters {
            line.append(ASCII.semicolon)
            line.append(contentsOf: parameter.name.utf8)
            line.append(ASCII.equals)
            line.append(contentsOf: parameter.rawValue.utf8)
        }
        line.append(ASCII.colon)
    }

    /// Builds an unfolded line at the end of `output`, then folds it in place.
    func appendLine(to output: inout [UInt8], _ build: (inout [UInt8]) -> Void) {
        let start = output.count
        build(&output)
        let length = output.count - start
        if length > lineLength {
            let line = Array(output[start...])
            output.removeSubrange(start...)
            fold(line, into: &output)
        }
        output.append(ASCII.cr)
        output.append(ASCII.lf)
    }

    /// Folds at `lineLength` octets: the first line holds up to `lineLength` octets, each
    /// continuation a space and up to `lineLength - 1` more. A fold never splits a UTF-8
    /// sequence.
    private func fold(_ line: [UInt8], into output: inout [UInt8]) {
        var index = 0
        var used = 0
        while index < line.count {
            let lead = line[index]
            var width = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if index + width > line.count { width = line.count - index }
            if used + width > lineLength {
                output.append(ASCII.cr)
                output.append(ASCII.lf)
                output.append(ASCII.space)
                used = 1
            }
            output.append(contentsOf: line[index..<(index + width)])
            used += width
            index += width
        }
    }
}

extension Component {
    /// This component as iCalendar text (CRLF, folded). See ``ICalWriter``.
    public func serialized() -> String { ICalWriter().string(self) }
}

extension ICalWriter {
    /// Writes bytes to a file atomically (temporary file in the same folder, fsync, rename,
    /// fsync of the folder), so a reader never sees half a file; `-` is standard output.
    public static func writeFileAtomically(_ bytes: [UInt8], to path: String) throws(ICalError) {
        try FileIO.writeAtomically(bytes, to: path)
    }
}
