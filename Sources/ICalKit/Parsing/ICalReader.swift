/// Reads iCalendar (RFC 5545) bytes into a tree of ``Component`` values, keeping every
/// property, parameter and component, and reporting problems as ``Diagnostic``s.
///
/// The reader accepts what real files contain: a UTF-8 byte order mark; CRLF, LF or CR
/// line ends; folds anywhere, including inside a multi-byte character; several
/// `VCALENDAR`s in one input; and bare components without a `VCALENDAR` (wrapped in one,
/// with a warning). A problem costs the line or the component it is in, never the file:
///
/// - a line without a colon, a bad name or parameter, or an invalid value (an impossible
///   date such as `20240231`, an hour of 25, an RRULE that cannot be read) is reported with
///   its line and left out;
/// - a component whose `END` is missing is closed where the structure shows it must end,
///   reported, and kept;
/// - an `END` without a `BEGIN` is reported and ignored.
///
/// In ``Mode/lenient`` mode (the default) reading goes on after problems; in
/// ``Mode/strict`` mode the first error throws. ``Limits`` bound the work any input can
/// cause, so binary garbage, 100,000 nested BEGINs or a 50 MB line fail fast.
///
/// The reader is pure Swift and needs no lock: libical's own parser drops unknown
/// properties, parameters and components (see the ICalKit documentation), so ICalKit
/// lexes content lines itself and uses libical for recurrence and time-zone work.
///
/// ```swift
/// let result = try ICalReader().read(contentsOfFile: "lessons.ics")
/// for diagnostic in result.diagnostics { print(diagnostic) }
/// let events = result.calendars.flatMap { $0.components(.event) }
/// ```
public struct ICalReader: Sendable {
    /// How the reader treats errors.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// Report problems and keep going (the default).
        case lenient
        /// Throw the first error; warnings are still only reported.
        case strict
    }

    /// Bounds on the work one input can cause. Exceeding one is an error diagnostic.
    public struct Limits: Sendable, Hashable, Codable {
        /// The largest input accepted, in bytes (default 256 MiB).
        public var maxInputSize: Int
        /// The longest content line after unfolding, in bytes (default 4 MiB).
        public var maxLineLength: Int
        /// The deepest nesting of components, VCALENDAR counting as 1 (default 32).
        public var maxDepth: Int
        /// The most properties in one component (default 100,000).
        public var maxPropertiesPerComponent: Int
        /// The most components in one input (default 5,000,000); in a streamed read, in one
        /// top-level component.
        public var maxComponents: Int
        /// After this many diagnostics the reader stops (default 1,000); a streamed read
        /// (``ICalComponentStream``) goes on and stops listing them.
        public var maxDiagnostics: Int
        /// The longest text of one top-level component (a `VEVENT` with everything in it)
        /// in a streamed read, in bytes (default 64 MiB): past it the component is left out
        /// with an error. Whole reads are bounded by ``maxInputSize`` instead.
        public var maxComponentSize: Int

        /// Creates limits; every argument has the documented default.
        public init(
            maxInputSize: Int = 256 << 20, maxLineLength: Int = 4 << 20, maxDepth: Int = 32,
            maxPropertiesPerComponent: Int = 100_000, maxComponents: Int = 5_000_000,
            maxDiagnostics: Int = 1_000, maxComponentSize: Int = 64 << 20
        ) {
            self.maxComponentSize = maxComponentSize
            self.maxInputSize = maxInputSize
            self.maxLineLength = maxLineLength
            self.maxDepth = maxDepth
            self.maxPropertiesPerComponent = maxPropertiesPerComponent
            self.maxComponents = maxComponents
            self.maxDiagnostics = maxDiagnostics
        }

        /// The defaults.
        public static let `default` = Limits()
    }

    /// Lenient or strict.
    public var mode: Mode
    /// The bounds on one input.
    public var limits: Limits

    /// Creates a reader.
    public init(mode: Mode = .lenient, limits: Limits = .default) {
        self.mode = mode
        self.limits = limits
    }

    /// Reads iCalendar bytes.
    ///
    /// - Parameters:
    ///   - bytes: the input, in UTF-8.
    ///   - file: the name diagnostics give as the input's file.
    /// - Throws: in strict mode, the first error, as an ``ICalError`` with its line.
    public func read(_ bytes: some Collection<UInt8>, file: String? = nil) throws(ICalError) -> ReadResult {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer -> Result<ReadResult, ICalError> in
            do throws(ICalError) { return .success(try readBuffer(buffer, file: file)) } catch { return .failure(error) }
        }
        if let contiguous { return try contiguous.get() }
        let array = Array(bytes)
        let result = array.withUnsafeBufferPointer { buffer -> Result<ReadResult, ICalError> in
            do throws(ICalError) { return .success(try readBuffer(buffer, file: file)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Reads iCalendar text.
    public func read(_ text: String, file: String? = nil) throws(ICalError) -> ReadResult {
        try read(Array(text.utf8), file: file)
    }

    /// Reads a file. `-` reads standard input.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the file cannot be read, and in
    ///   strict mode the first error.
    public func read(contentsOfFile path: String) throws(ICalError) -> ReadResult {
        let bytes = try FileIO.readAll(path: path, limit: limits.maxInputSize)
        return try read(bytes, file: path == "-" ? "<stdin>" : path)
    }

    private func readBuffer(_ buffer: UnsafeBufferPointer<UInt8>, file: String?) throws(ICalError) -> ReadResult {
        // A large input is read in parts, on every core, when that gives the same result.
        if let result = readInParts(buffer, file: file) { return result }
        var parser = Parser(reader: self, file: file)
        try parser.run(buffer)
        return ReadResult(calendars: parser.calendars, diagnostics: parser.diagnostics)
    }
}

/// What ``ICalReader`` read: the calendars and every problem it found.
public struct ReadResult: Sendable, Hashable {
    /// The `VCALENDAR` components, in input order. Bare components are wrapped in one.
    public var calendars: [Component]
    /// The problems found, in input order.
    public var diagnostics: [Diagnostic]

    /// Creates a result.
    public init(calendars: [Component], diagnostics: [Diagnostic]) {
        self.calendars = calendars
        self.diagnostics = diagnostics
    }

    /// Whether any diagnostic is an error (something was lost or could not be read).
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The errors only.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
}

/// The state of one read. Not public: ``ICalReader`` is the API.
struct Parser {
    private struct Open {
        var component: Component
        var kind: ComponentKind
        var synthetic: Bool
        var limitReported = false
    }

    let reader: ICalReader
    let file: String?
    private(set) var calendars: [Component] = []
    private(set) var diagnostics: [Diagnostic] = []
    private var stack: [Open] = []
    private var skipDepth = 0
    private(set) var componentCount = 0
    /// How many properties the component last closed at each depth had: a component is
    /// given room for as many (the components of a file tend to look alike), so that its
    /// properties are not moved to a larger array again and again as they are read.
    private var propertyCountHints: [Int] = []
    private(set) var stopped = false
    private(set) var componentLimitReported = false

    // Streaming (``ICalComponentStream``): with a sink, each child of a VCALENDAR is handed
    // to it when it closes instead of being kept, and `calendars` keeps the VCALENDARs'
    // properties only.

    /// One thing a streaming read hands out.
    enum StreamEvent {
        /// A child of the VCALENDAR `calendarIndex` (whose properties so far are `calendar`),
        /// with the bytes and first line of its text.
        case component(Component, calendar: Component, calendarIndex: Int, bytes: Range<Int>, line: Int)
        /// The VCALENDAR `calendarIndex` closed (its properties; `children` were handed out).
        case calendarEnd(Component, calendarIndex: Int, children: Int)
    }

    /// Where streamed components go; nil keeps the whole tree.
    var sink: ((StreamEvent) -> Void)?
    /// Whether the streamed events add up to the tree a whole read gives: false after a
    /// VCALENDAR property that follows one of its children, after the reader stopped, or
    /// after the component limit left components out.
    private(set) var faithful = true
    /// The problems a stream found past ``ICalReader/Limits/maxDiagnostics`` (not kept).
    private(set) var unlistedDiagnostics = 0
    /// How many of ``unlistedDiagnostics`` are errors.
    private(set) var unlistedErrors = 0

    /// The line a stream ends its diagnostics with when it found more than it lists.
    var unlistedSummary: Diagnostic? {
        guard unlistedDiagnostics > 0 else { return nil }
        return Diagnostic(unlistedErrors > 0 ? .error : .warning, .limitExceeded, line: physicalLine, file: file,
                          message: "\(unlistedDiagnostics) more problems (\(unlistedErrors) of them errors) past the "
                              + "limit of \(reader.limits.maxDiagnostics) listed; the whole input was read")
    }
    /// The offset of the buffer given to ``feed(_:isLast:)`` in the whole input.
    var base = 0
    /// The number of the next physical line.
    var physicalLine = 1
    private var lineStartOffset = 0
    private var lineEndOffset = 0
    private var childStart = 0
    private var childLine = 0
    private var calendarsClosed = 0
    private var childrenHandedOut = 0

    // A read in parts (ICalReader+Parts): a part after the first starts inside the VCALENDAR
    // that the parts before it left open.

    /// Whether the VCALENDAR this part started in is still open.
    private var continuationOpen = false
    /// Whether this part closed the VCALENDAR it started in other than by its END (a missing
    /// END reported with that VCALENDAR's BEGIN line, which this part does not know).
    private(set) var continuationBroken = false

    init(reader: ICalReader, file: String?) {
        self.reader = reader
        self.file = file
    }

    /// A parser that reads the text of one child of a VCALENDAR (its bytes as a streaming
    /// read located them) as it was read inside that VCALENDAR.
    init(reader: ICalReader, file: String?, childAt offset: Int, line: Int) {
        self.init(reader: reader, file: file)
        stack = [Open(component: Component(name: ComponentKind.calendar.rawValue, line: line), kind: .calendar, synthetic: false)]
        base = offset
        physicalLine = line
    }

    /// A parser for a part of an input that starts at `offset`, the start of physical line
    /// `line`, inside a VCALENDAR named `VCALENDAR` that an earlier part began: what it reads
    /// at depth one adds to that VCALENDAR (see ``openCalendar``).
    init(reader: ICalReader, file: String?, continuingCalendarAt offset: Int, line: Int) {
        self.init(reader: reader, file: file, childAt: offset, line: line)
        continuationOpen = true
    }

    /// The calendars closed, handed over (the parser keeps none, so that the caller's copy
    /// is the only one and grows in place).
    mutating func takeCalendars() -> [Component] {
        defer { calendars = [] }
        return calendars
    }

    /// ``openCalendar``, handed over likewise (nothing stays open here).
    mutating func takeOpenCalendar() -> Component? {
        guard let calendar = openCalendar else { return nil }
        stack.removeAll()
        return calendar
    }

    /// The VCALENDAR open where this part ended, if the part ended as a read in parts needs
    /// the next part to start: inside one VCALENDAR named `VCALENDAR` (as written), begun
    /// by a BEGIN line, with nothing below it open or being skipped, and still reading.
    var openCalendar: Component? {
        guard !stopped, skipDepth == 0, stack.count == 1, let open = stack.first, !open.synthetic,
              !open.limitReported, open.kind == .calendar, open.component.name == "VCALENDAR"
        else { return nil }
        return open.component
    }

    // MARK: Reporting

    private mutating func report(
        _ severity: Diagnostic.Severity, _ code: ICalError.Code, line: Int,
        property: String? = nil, component: String? = nil, _ message: String
    ) throws(ICalError) {
        guard !stopped else { return }
        let diagnostic = Diagnostic(
            severity, code, line: line, file: file,
            component: component ?? stack.last?.component.name, property: property, message: message)
        if severity == .error && reader.mode == .strict { throw ICalError(diagnostic) }
        if sink != nil {
            // A stream reads on: the problems past the limit are counted, not kept.
            if diagnostics.count < reader.limits.maxDiagnostics {
                diagnostics.append(diagnostic)
            } else {
                unlistedDiagnostics += 1
                if severity == .error { unlistedErrors += 1 }
            }
            return
        }
        diagnostics.append(diagnostic)
        if diagnostics.count >= reader.limits.maxDiagnostics {
            let cap = Diagnostic(
                .error, .limitExceeded, line: line, file: file,
                message: "more than \(reader.limits.maxDiagnostics) problems; stopped reading here "
                    + "(is this an iCalendar file?)")
            // Reached through warnings alone in strict mode; it is an error, so it throws too.
            if reader.mode == .strict { throw ICalError(cap) }
            diagnostics.append(cap)
            stopped = true
            faithful = false
        }
    }

    // MARK: Lines

    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>) throws(ICalError) {
        let count = buffer.count
        if count > reader.limits.maxInputSize {
            try report(.error, .limitExceeded, line: 1,
                       "input is \(count) bytes, more than the limit of \(reader.limits.maxInputSize); nothing was read")
            return
        }
        try feed(buffer, isLast: true)
    }

    /// Reads the next part of the input, which starts at offset ``base``: a part other than
    /// the last ends where a content line ends (the byte after it is neither a space nor a
    /// tab, nor the LF of a CRLF). The last part finishes the read.
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>, isLast: Bool) throws(ICalError) {
        let count = buffer.count
        var index = 0
        if base == 0 && count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { index = 3 }

        var physicalLine = self.physicalLine
        // The pending logical line: a range of `buffer` while unfolded, else `folded`.
        var pendingStart = -1, pendingEnd = -1, pendingLine = 0
        var pendingFolded = false, pendingTooLong = false, pendingHasNul = false
        var folded: [UInt8] = []
        let maxLine = reader.limits.maxLineLength

        while index < count && !stopped {
            // Find the end of this physical line: eight bytes at a time while none of them
            // is a line end or a NUL (most of a file), then byte by byte.
            var end = index
            var hasNul = false
            if let base = buffer.baseAddress {
                while end + 8 <= count {
                    let word = UnsafeRawPointer(base + end).loadUnaligned(as: UInt64.self)
                    if ASCII.hasByte(ASCII.lf, in: word) || ASCII.hasByte(ASCII.cr, in: word) || ASCII.hasByte(0, in: word) { break }
                    end += 8
                }
            }
            while end < count {
                let byte = buffer[end]
                if byte == ASCII.lf || byte == ASCII.cr { break }
                if byte == 0 { hasNul = true }
                end += 1
            }
            let lineNumber = physicalLine
            physicalLine += 1
            var next = end
            if next < count {
                next += (buffer[next] == ASCII.cr && next + 1 < count && buffer[next + 1] == ASCII.lf) ? 2 : 1
            }

            let isContinuation = end > index && (buffer[index] == ASCII.space || buffer[index] == ASCII.tab)
            if isContinuation && pendingStart >= 0 {
                pendingHasNul = pendingHasNul || hasNul
                let length = (pendingFolded ? folded.count : pendingEnd - pendingStart) + (end - index - 1)
                if length > maxLine {
                    pendingTooLong = true
                } else if !pendingTooLong {
                    if !pendingFolded {
                        folded.removeAll(keepingCapacity: true)
                        folded.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[pendingStart..<pendingEnd]))
                        pendingFolded = true
                    }
                    folded.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(index + 1)..<end]))
                }
                index = next
                continue
            }

            // Flush the pending logical line.
            if pendingStart >= 0 {
                lineStartOffset = base + pendingStart
                lineEndOffset = base + index
                try flush(buffer, pendingStart, pendingEnd, pendingFolded, &folded, pendingLine,
                          tooLong: pendingTooLong, hasNul: pendingHasNul)
                pendingStart = -1
            }
            if end == index { index = next; continue }  // blank line
            if isContinuation {
                try report(.error, .syntax, line: lineNumber,
                           "line starts with white space but there is no line before it to continue; left out")
                index = next
                continue
            }
            // Files joined with `cat` carry each file's byte order mark into the middle.
            var lineStart = index
            if end - index >= 3 && buffer[index] == 0xEF && buffer[index + 1] == 0xBB && buffer[index + 2] == 0xBF {
                try report(.warning, .encoding, line: lineNumber,
                           "byte order mark inside the input (files joined together?); ignored")
                lineStart += 3
                if lineStart == end { index = next; continue }
            }
            pendingStart = lineStart
            pendingEnd = end
            pendingLine = lineNumber
            pendingFolded = false
            pendingTooLong = end - lineStart > maxLine
            pendingHasNul = hasNul
            index = next
        }
        if pendingStart >= 0 && !stopped {
            lineStartOffset = base + pendingStart
            lineEndOffset = base + count
            try flush(buffer, pendingStart, pendingEnd, pendingFolded, &folded, pendingLine,
                      tooLong: pendingTooLong, hasNul: pendingHasNul)
        }
        self.physicalLine = physicalLine
        if isLast { try finish(lastLine: max(physicalLine - 1, 1)) }
    }

    private mutating func flush(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ isFolded: Bool,
        _ folded: inout [UInt8], _ line: Int, tooLong: Bool, hasNul: Bool
    ) throws(ICalError) {
        if tooLong {
            try report(.error, .limitExceeded, line: line,
                       "content line is longer than the limit of \(reader.limits.maxLineLength) bytes; left out")
            return
        }
        if hasNul {
            try report(.error, .encoding, line: line,
                       "line contains a NUL byte (binary data is not iCalendar text); left out")
            return
        }
        if isFolded {
            try folded.withUnsafeBufferPointer { bytes throws(ICalError) in try contentLine(bytes, line: line) }
        } else {
            try contentLine(UnsafeBufferPointer(rebasing: buffer[start..<end]), line: line)
        }
    }

    // MARK: Content lines

    /// `String(validating:as: UTF8.self)` of a range, without its generic overhead (which
    /// looks up type metadata on every call): valid UTF-8 is decoded, invalid gives nil.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        guard ASCII.isValidUTF8(slice) else { return nil }
        return String(decoding: slice, as: UTF8.self)
    }

    /// The name of a content line or parameter as a `String`: a name most files use, as
    /// written in capitals, is the constant (no string is made and checked for it), any
    /// other is decoded. Both give the same text.
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        @inline(__always) func equals(_ known: StaticString) -> Bool {
            let start = known.utf8Start
            for index in 0..<bytes.count where bytes[index] != start[index] { return false }
            return true
        }
        switch bytes.count {
        case 2: if equals("CN") { return "CN" }
        case 3:
            if equals("UID") { return "UID" }
            if equals("END") { return "END" }
            if equals("URL") { return "URL" }
            if equals("DUE") { return "DUE" }
        case 4:
            if equals("TZID") { return "TZID" }
            if equals("ROLE") { return "ROLE" }
            if equals("RSVP") { return "RSVP" }
        case 5:
            if equals("BEGIN") { return "BEGIN" }
            if equals("DTEND") { return "DTEND" }
            if equals("RRULE") { return "RRULE" }
            if equals("VALUE") { return "VALUE" }
            if equals("RDATE") { return "RDATE" }
            if equals("CLASS") { return "CLASS" }
        case 6:
            if equals("STATUS") { return "STATUS" }
            if equals("TRANSP") { return "TRANSP" }
            if equals("ACTION") { return "ACTION" }
            if equals("EXDATE") { return "EXDATE" }
            if equals("ATTACH") { return "ATTACH" }
            if equals("TZNAME") { return "TZNAME" }
            if equals("CUTYPE") { return "CUTYPE" }
        case 7:
            if equals("DTSTART") { return "DTSTART" }
            if equals("DTSTAMP") { return "DTSTAMP" }
            if equals("SUMMARY") { return "SUMMARY" }
            if equals("CREATED") { return "CREATED" }
            if equals("TRIGGER") { return "TRIGGER" }
            if equals("RELATED") { return "RELATED" }
        case 8:
            if equals("SEQUENCE") { return "SEQUENCE" }
            if equals("LOCATION") { return "LOCATION" }
            if equals("ATTENDEE") { return "ATTENDEE" }
            if equals("DURATION") { return "DURATION" }
            if equals("PARTSTAT") { return "PARTSTAT" }
            if equals("PRIORITY") { return "PRIORITY" }
        case 9: if equals("ORGANIZER") { return "ORGANIZER" }
        case 10:
            if equals("CATEGORIES") { return "CATEGORIES" }
            if equals("TZOFFSETTO") { return "TZOFFSETTO" }
        case 11: if equals("DESCRIPTION") { return "DESCRIPTION" }
        case 12: if equals("TZOFFSETFROM") { return "TZOFFSETFROM" }
        case 13:
            if equals("LAST-MODIFIED") { return "LAST-MODIFIED" }
            if equals("RECURRENCE-ID") { return "RECURRENCE-ID" }
        default: break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func contentLine(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws(ICalError) {
        let count = bytes.count
        var position = 0
        while position < count && ASCII.isNameByte(bytes[position]) { position += 1 }
        guard position < count, bytes[position] == ASCII.colon || bytes[position] == ASCII.semicolon else {
            let hasColon = bytes.contains(ASCII.colon)
            let preview = Parser.preview(bytes)
            if position == count || !hasColon {
                try report(.error, .syntax, line: line,
                           "line has no colon, so it is not a content line (\(preview)); left out")
            } else {
                try report(.error, .syntax, line: line,
                           "property name contains a character other than letters, digits and '-' (\(preview)); left out")
            }
            return
        }
        guard position > 0 else {
            try report(.error, .syntax, line: line, "line has no property name (\(Parser.preview(bytes))); left out")
            return
        }
        let nameEnd = position
        let name = Parser.name(UnsafeBufferPointer(rebasing: bytes[0..<nameEnd]))

        var parameters: [Parameter] = []
        while position < count && bytes[position] == ASCII.semicolon {
            position += 1
            let nameStart = position
            while position < count && ASCII.isNameByte(bytes[position]) { position += 1 }
            guard position > nameStart, position < count, bytes[position] == ASCII.equals else {
                try report(.error, .syntax, line: line, property: name,
                           "parameter \(position > nameStart ? "'\(String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<position]), as: UTF8.self))' " : "")has no '=value'; line left out")
                return
            }
            let parameterName = Parser.name(UnsafeBufferPointer(rebasing: bytes[nameStart..<position]))
            position += 1
            let valueStart = position
            valueLoop: while true {
                if position < count && bytes[position] == ASCII.quote {
                    position += 1
                    while position < count && bytes[position] != ASCII.quote { position += 1 }
                    guard position < count else {
                        try report(.error, .syntax, line: line, property: name,
                                   "parameter \(parameterName) has a quoted value without its closing quote; line left out")
                        return
                    }
                    position += 1
                } else {
                    while position < count {
                        let byte = bytes[position]
                        if byte == ASCII.semicolon || byte == ASCII.colon || byte == ASCII.comma { break }
                        position += 1
                    }
                }
                if position < count && bytes[position] == ASCII.comma { position += 1; continue valueLoop }
                break
            }
            guard let raw = Parser.string(bytes, valueStart..<position) else {
                try report(.error, .encoding, line: line, property: name,
                           "parameter \(parameterName) is not valid UTF-8; line left out")
                return
            }
            parameters.append(Parameter(name: parameterName, rawValue: raw))
        }
        guard position < count, bytes[position] == ASCII.colon else {
            try report(.error, .syntax, line: line, property: name,
                       "line has no colon after its parameters; left out")
            return
        }
        let valueRange = (position + 1)..<count
        var value: String
        if let decoded = Parser.string(bytes, valueRange) {
            value = decoded
        } else {
            value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueRange]), as: UTF8.self)
            try report(.warning, .encoding, line: line, property: name,
                       "value is not valid UTF-8; invalid bytes were replaced with U+FFFD")
        }

        let nameBytes = UnsafeBufferPointer(rebasing: bytes[0..<nameEnd])
        if ASCII.equalsIgnoringCase(nameBytes, "BEGIN") {
            try begin(trimmed(value), line: line)
        } else if ASCII.equalsIgnoringCase(nameBytes, "END") {
            try end(trimmed(value), line: line)
        } else {
            try property(Property(name: name, parameters: parameters, rawValue: value, line: line))
        }
    }

    private func trimmed(_ value: String) -> String {
        guard let first = value.utf8.first, let last = value.utf8.last,
              first == ASCII.space || last == ASCII.space || first == ASCII.tab || last == ASCII.tab
        else { return value }
        return String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func preview(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let head = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<min(bytes.count, 40)]), as: UTF8.self)
        let printable = String(head.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{FFFD}" ? "?" : Character($0) })
        return "\"\(printable)\(bytes.count > 40 ? "…" : "")\""
    }

    // MARK: Structure

    private mutating func begin(_ name: String, line: Int) throws(ICalError) {
        if skipDepth > 0 { skipDepth += 1; return }
        if try leftOutOversizedChild(line: line) { skipDepth += 1; return }
        guard !name.isEmpty, name.utf8.allSatisfy(ASCII.isNameByte) else {
            try report(.error, .syntax, line: line, "BEGIN has no valid component name ('\(name)'); line left out")
            return
        }
        let kind = ComponentKind(rawValue: name)
        if stack.isEmpty {
            if kind != .calendar {
                try report(.warning, .placement, line: line, component: name,
                           "\(name) is not inside a VCALENDAR; wrapped in one")
                var calendar = Component(name: ComponentKind.calendar.rawValue, line: line)
                calendar.properties = [
                    Property(.version, rawValue: "2.0"),
                    Property(.productIdentifier, rawValue: "-//OpenEventKit//ICalKit//EN"),
                ]
                stack.append(Open(component: calendar, kind: .calendar, synthetic: true))
            }
        } else if kind == .calendar {
            try closeAll(before: name, line: line)
        } else if let allowed = kind.allowedParents, let top = stack.last, !allowed.contains(top.kind) {
            if let parentIndex = stack.lastIndex(where: { allowed.contains($0.kind) }) {
                while stack.count - 1 > parentIndex {
                    try closeTop(line: line, missingEndBefore: "BEGIN:\(name)")
                }
            } else {
                try report(.warning, .placement, line: line, component: name,
                           "\(name) is not allowed inside \(top.component.name) by RFC 5545; kept where it is")
            }
        }
        if stack.count >= reader.limits.maxDepth {
            try report(.error, .limitExceeded, line: line, component: name,
                       "components are nested deeper than the limit of \(reader.limits.maxDepth); \(name) and everything in it left out")
            skipDepth = 1
            return
        }
        // A stream bounds the components of each top-level component, not of the input.
        if sink != nil && stack.count == 1 { componentCount = 0 }
        componentCount += 1
        if componentCount > reader.limits.maxComponents {
            if !componentLimitReported {
                componentLimitReported = true
                faithful = false
                try report(.error, .limitExceeded, line: line, component: name,
                           "more than \(reader.limits.maxComponents) components; the rest are left out")
            }
            skipDepth = 1
            return
        }
        if stack.count == 1 {
            childStart = lineStartOffset
            childLine = line
        }
        var component = Component(name: name, line: line)
        if stack.count < propertyCountHints.count, propertyCountHints[stack.count] > 0 {
            component.properties.reserveCapacity(min(propertyCountHints[stack.count], 256))
        }
        stack.append(Open(component: component, kind: kind, synthetic: false))
    }

    private mutating func end(_ name: String, line: Int) throws(ICalError) {
        if skipDepth > 0 { skipDepth -= 1; return }
        guard let index = stack.lastIndex(where: { ASCII.equalsIgnoringCase($0.component.name, name) }) else {
            try report(.error, .structure, line: line, component: name,
                       "END:\(name) has no matching BEGIN:\(name); line ignored")
            return
        }
        while stack.count - 1 > index {
            try closeTop(line: line, missingEndBefore: "END:\(name)")
        }
        close(at: lineEndOffset)
    }

    private mutating func closeAll(before what: String, line: Int) throws(ICalError) {
        while let top = stack.last {
            if top.synthetic && stack.count == 1 { close(at: lineStartOffset); break }
            try closeTop(line: line, missingEndBefore: what)
        }
    }

    private mutating func closeTop(line: Int, missingEndBefore what: String) throws(ICalError) {
        guard let top = stack.last else { return }
        if stack.count == 1 && continuationOpen { continuationBroken = true }
        let begun = top.component.line.map { " (BEGIN at line \($0))" } ?? ""
        try report(.error, .structure, line: line, component: top.component.name,
                   "\(what) arrived before END:\(top.component.name)\(begun); closed \(top.component.name) here and kept it")
        close(at: lineStartOffset)
    }

    /// Closes the innermost open component, whose text ends at byte `end`.
    private mutating func close(at end: Int) {
        guard let top = stack.popLast() else { return }
        if stack.isEmpty { continuationOpen = false }
        while propertyCountHints.count <= stack.count { propertyCountHints.append(0) }
        propertyCountHints[stack.count] = top.component.properties.count
        if stack.isEmpty {
            calendars.append(top.component)
            if let sink {
                sink(.calendarEnd(top.component, calendarIndex: calendarsClosed, children: childrenHandedOut))
                calendarsClosed += 1
                childrenHandedOut = 0
            }
        } else if let sink, stack.count == 1 {
            sink(.component(top.component, calendar: stack[0].component, calendarIndex: calendarsClosed,
                            bytes: childStart..<end, line: childLine))
            childrenHandedOut += 1
        } else {
            stack[stack.count - 1].component.components.append(top.component)
        }
    }

    /// In a stream, leaves out the top-level component being read once its text is longer
    /// than ``ICalReader/Limits/maxComponentSize`` (what is left of it is skipped up to its
    /// END); true when it did.
    private mutating func leftOutOversizedChild(line: Int) throws(ICalError) -> Bool {
        guard sink != nil, stack.count >= 2, lineEndOffset - childStart > reader.limits.maxComponentSize else { return false }
        let child = stack[1].component
        let begun = child.line.map { " (BEGIN at line \($0))" } ?? ""
        try report(.error, .limitExceeded, line: line, component: child.name,
                   "\(child.name)\(begun) is longer than the limit of \(reader.limits.maxComponentSize) bytes; left out")
        skipDepth = stack.count - 1
        stack.removeSubrange(1...)
        return true
    }

    private mutating func property(_ property: Property) throws(ICalError) {
        if skipDepth > 0 { return }
        if try leftOutOversizedChild(line: property.line ?? 0) { return }
        guard !stack.isEmpty else {
            try report(.error, .placement, line: property.line ?? 0, property: property.name,
                       "\(property.name) is outside any component; left out")
            return
        }
        let top = stack.count - 1
        if stack[top].component.properties.count >= reader.limits.maxPropertiesPerComponent {
            if !stack[top].limitReported {
                stack[top].limitReported = true
                try report(.error, .limitExceeded, line: property.line ?? 0, property: property.name,
                           "more than \(reader.limits.maxPropertiesPerComponent) properties in one component; the rest are left out")
            }
            return
        }
        if let problem = PropertyValidation.problem(with: property, in: stack[top].kind) {
            try report(problem.severity, .invalidValue, line: property.line ?? 0, property: property.name,
                       problem.message)
            if problem.severity == .error { return }
        }
        if top == 0 && childrenHandedOut > 0 { faithful = false }
        stack[top].component.properties.append(property)
    }

    private mutating func finish(lastLine: Int) throws(ICalError) {
        if stopped { stack.removeAll(); faithful = false; return }
        while let top = stack.last {
            if top.synthetic && stack.count == 1 { close(at: lineEndOffset); break }
            let begun = top.component.line.map { " (BEGIN at line \($0))" } ?? ""
            if stack.count == 1 && continuationOpen { continuationBroken = true }
            try report(.error, .structure, line: lastLine, component: top.component.name,
                       "input ended before END:\(top.component.name)\(begun); closed it at the end and kept it")
            close(at: lineEndOffset)
        }
        if calendars.isEmpty {
            try report(.error, .noCalendarData, line: 1,
                       "no iCalendar data found: expected BEGIN:VCALENDAR (or BEGIN:VEVENT)")
        }
    }
}
