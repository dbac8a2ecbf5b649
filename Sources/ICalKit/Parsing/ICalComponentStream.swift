#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

private func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

/// Reads an iCalendar file one top-level component at a time, so that memory holds the
/// component being read and not the file's tree: what `ical import` and `ical convert` use
/// for files of any size.
///
/// ``read(_:)`` reads the file in parts of about a megabyte with the same reader as
/// ``ICalReader/read(contentsOfFile:)`` and hands out each child of a `VCALENDAR` (each
/// `VEVENT`, `VTODO`, `VTIMEZONE`, …) as it closes, with the `VCALENDAR`'s properties read
/// so far and the place of its text (``Location``). It reports the same diagnostics, with
/// the same file and line, and in ``ICalReader/Mode/strict`` mode throws the same first
/// error. ``component(at:)`` reads one component again from its place, as it was read
/// inside its `VCALENDAR`, so a caller can keep the places instead of the components and
/// come back for each one.
///
/// The events add up to the tree a whole read gives when ``Summary/isFaithful`` is true:
/// every component handed out, in order, under the `VCALENDAR` whose properties
/// ``Summary/calendars`` holds. It is false in three rare cases, where the caller reads the
/// file whole instead: a `VCALENDAR` property that comes after one of its components, a
/// read stopped after ``ICalReader/Limits/maxDiagnostics`` problems, and components left out
/// over ``ICalReader/Limits/maxComponents``.
///
/// Files of any size are streamed, and standard input (`-`) too: a pipe is first copied to
/// an unlinked temporary file (``open(_:reader:)``), so that components can be read again
/// from their places. ``ICalReader/Limits/maxInputSize`` bounds whole reads only; a stream
/// is bounded per component instead: a content line (``ICalReader/Limits/maxLineLength``),
/// the text of one top-level component (``ICalReader/Limits/maxComponentSize``), the
/// components nested in it (``ICalReader/Limits/maxComponents``) and its properties. After
/// ``ICalReader/Limits/maxDiagnostics`` problems a stream goes on reading and stops listing
/// them (a whole read stops), so one bad property per event does not stop a
/// million-event export. ``open(_:reader:)`` gives nil for jCal only.
///
/// ```swift
/// if let stream = try ICalComponentStream.open("big.ics") {
///     let summary = try stream.read { event in
///         if case .component(let item) = event, item.component.matches(.event) {
///             print(item.component.uid ?? "")
///         }
///     }
///     summary.diagnostics.forEach { print($0) }
/// }
/// ```
public final class ICalComponentStream {
    /// Where a component's text is in the file: its bytes, and the line its `BEGIN` is on.
    public struct Location: Sendable, Hashable {
        /// The byte offsets of its text, from its `BEGIN` line to its `END` line (or to
        /// where the structure closed it).
        public var bytes: Range<Int>
        /// The line of its `BEGIN`.
        public var line: Int

        /// Creates a location.
        public init(bytes: Range<Int>, line: Int) {
            self.bytes = bytes
            self.line = line
        }
    }

    /// One child of a `VCALENDAR`, as ``read(_:)`` hands it out.
    public struct Item {
        /// The component, with everything in it.
        public var component: Component
        /// Its `VCALENDAR`'s properties read so far (no components).
        public var calendar: Component
        /// Which `VCALENDAR` of the file it is in, from 0.
        public var calendarIndex: Int
        /// Where its text is.
        public var location: Location

        /// Creates an item (package: a stream that changes what it hands out, such as a
        /// repair's, hands out items of its own).
        package init(component: Component, calendar: Component, calendarIndex: Int, location: Location) {
            self.component = component
            self.calendar = calendar
            self.calendarIndex = calendarIndex
            self.location = location
        }
    }

    /// What ``read(_:)`` hands out, in file order.
    public enum Event {
        /// A child of a `VCALENDAR`, when it closes.
        case component(Item)
        /// A `VCALENDAR` closed: its properties (no components) and its index, from 0.
        case endOfCalendar(Component, calendarIndex: Int)
    }

    /// What a streamed read found besides the components.
    public struct Summary: Sendable {
        /// Each `VCALENDAR` of the file with its properties and no components, in order.
        /// Empty when the file holds no calendar data.
        public var calendars: [Component]
        /// How many components each `VCALENDAR` handed out.
        public var componentCounts: [Int]
        /// The problems found, as ``ICalReader/read(contentsOfFile:)`` reports them.
        public var diagnostics: [Diagnostic]
        /// Whether the components handed out, under ``calendars``, are the tree a whole read
        /// gives (see ``ICalComponentStream``).
        public var isFaithful: Bool
    }

    /// The reader whose mode and limits apply.
    public let reader: ICalReader
    /// The file's name in diagnostics.
    public let file: String
    /// The open file, or -1 after ``close()`` (reopened when needed).
    private var descriptor: Int32
    private let size: Int
    /// The file's identity when it was opened: a reopened file must still be the same.
    private let identity: [Int]
    /// The size of the parts the file is read in (package: tests read in parts of a few bytes).
    package var partSize = 1 << 20
    /// Whether the descriptor is standard input's copy, which cannot be opened again by name.
    private let isStandardInput: Bool

    private init(reader: ICalReader, file: String, descriptor: Int32, size: Int, identity: [Int],
                 isStandardInput: Bool = false) {
        self.reader = reader
        self.file = file
        self.descriptor = descriptor
        self.size = size
        self.identity = identity
        self.isStandardInput = isStandardInput
    }

    deinit {
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// The size of the file in bytes.
    public var byteCount: Int { size }

    /// Closes the file; ``read(_:)`` and ``component(at:)`` open it again when called (and
    /// fail when it is no longer the same file). A caller that keeps many streams closes
    /// them, so that they do not hold a descriptor each. Standard input's stream keeps its
    /// descriptor (there is no name to open again).
    public func close() {
        if isStandardInput { return }
        if descriptor >= 0 { closeDescriptor(descriptor) }
        descriptor = -1
    }

    private static func identity(_ info: stat) -> [Int] {
        [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    /// The open descriptor, opening the file again after ``close()``.
    private func openDescriptor() throws(ICalError) -> Int32 {
        if descriptor >= 0 { return descriptor }
        let reopened = openForReading(file)
        guard reopened >= 0 else {
            throw ICalError(.io, "cannot open: \(String(cString: strerror(errno)))", file: file)
        }
        var info = stat()
        guard fstat(reopened, &info) == 0, Self.identity(info) == identity else {
            closeDescriptor(reopened)
            throw ICalError(.io, "the file changed while it was read; nothing was written", file: file)
        }
        descriptor = reopened
        return reopened
    }

    /// Opens a file of any size for streaming, or gives nil for jCal content (read it with
    /// ``ICalReader/read(contentsOfFileInAnyFormat:)``, which bounds it by
    /// ``ICalReader/Limits/maxInputSize``). `-` is standard input: a pipe is first copied to
    /// an unlinked temporary file in `$TMPDIR`, which becomes standard input, so a whole read
    /// of `-` after a nil reads the same bytes; its diagnostics name `<stdin>`. A named pipe
    /// or device is not a file to stream (nil: read it whole).
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the file cannot be opened (or
    ///   standard input cannot be copied).
    public static func open(_ path: String, reader: ICalReader = ICalReader()) throws(ICalError) -> ICalComponentStream? {
        let isStandardInput = path == "-"
        if isStandardInput { try FileIO.spoolStandardInput() }
        let descriptor = isStandardInput ? fcntl(0, F_DUPFD_CLOEXEC, 0) : openForReading(path)
        guard descriptor >= 0 else {
            throw ICalError(.io, "cannot open: \(String(cString: strerror(errno)))", file: isStandardInput ? "<stdin>" : path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            closeDescriptor(descriptor)
            return nil
        }
        let stream = ICalComponentStream(reader: reader, file: isStandardInput ? "<stdin>" : path, descriptor: descriptor,
                                         size: Int(info.st_size), identity: Self.identity(info),
                                         isStandardInput: isStandardInput)
        let head = try stream.bytes(0..<min(stream.size, 4096))
        return CalendarFormat.detect(head) == .iCalendar ? stream : nil
    }

    /// Reads the file from the start, handing out each child of a `VCALENDAR` as it closes
    /// and each `VCALENDAR` as it ends.
    ///
    /// - Throws: in strict mode the first error, as ``ICalReader/read(contentsOfFile:)``
    ///   throws it; ``ICalError/Code-swift.struct/io`` when the file cannot be read.
    public func read(_ body: (Event) -> Void) throws(ICalError) -> Summary {
        var counts: [Int] = []
        return try withoutActuallyEscaping(body) { body throws(ICalError) -> Summary in
            var parser = Parser(reader: reader, file: file)
            parser.sink = { event in
                switch event {
                case let .component(component, calendar, index, bytes, line):
                    body(.component(Item(component: component, calendar: calendar, calendarIndex: index,
                                         location: Location(bytes: bytes, line: line))))
                case let .calendarEnd(calendar, index, children):
                    counts.append(children)
                    body(.endOfCalendar(calendar, calendarIndex: index))
                }
            }
            var buffer = [UInt8](repeating: 0, count: max(partSize, 2))
            var filled = 0
            var offset = 0
            while true {
                let wanted = min(buffer.count - filled, size - offset - filled)
                if wanted > 0 {
                    let read = try readInto(&buffer, at: filled, count: wanted, offset: offset + filled)
                    filled += read
                }
                let isLast = offset + filled >= size
                let boundary = isLast ? filled : Self.lastLineStart(buffer, filled)
                guard let boundary else {
                    // One content line longer than the buffer: read it whole, up to the
                    // longest line the reader reports (past that, the read stops here).
                    if filled == buffer.count {
                        guard buffer.count <= reader.limits.maxLineLength + partSize else {
                            throw ICalError(.limitExceeded,
                                            "a content line starting near byte \(offset) is longer than \(buffer.count) bytes (the limit is \(reader.limits.maxLineLength)); nothing after it was read",
                                            file: file)
                        }
                        buffer.append(contentsOf: repeatElement(0, count: buffer.count))
                    }
                    continue
                }
                try buffer.withUnsafeBufferPointer { whole throws(ICalError) in
                    try parser.feed(UnsafeBufferPointer(rebasing: whole[0..<boundary]), isLast: isLast)
                }
                if isLast { break }
                buffer.withUnsafeMutableBufferPointer { whole in
                    let rest = filled - boundary
                    if rest > 0 { whole.baseAddress!.update(from: whole.baseAddress! + boundary, count: rest) }
                }
                filled -= boundary
                offset += boundary
                parser.base = offset
            }
            return Summary(calendars: parser.calendars, componentCounts: counts,
                           diagnostics: parser.diagnostics + (parser.unlistedSummary.map { [$0] } ?? []),
                           isFaithful: parser.faithful)
        }
    }

    /// Reads the component at `location` again (as ``read(_:)`` located it), inside a
    /// `VCALENDAR` as it was read; its diagnostics were reported by ``read(_:)``.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the file cannot be read or no
    ///   component begins there (the file changed).
    public func component(at location: Location) throws(ICalError) -> Component {
        let text = try bytes(location.bytes)
        var parser = Parser(reader: ICalReader(mode: .lenient, limits: reader.limits), file: file,
                            childAt: location.bytes.lowerBound, line: location.line)
        try text.withUnsafeBufferPointer { buffer throws(ICalError) in try parser.feed(buffer, isLast: true) }
        guard let component = parser.calendars.first?.components.first else {
            throw ICalError(.io, "no component at line \(location.line) any more: the file changed while it was read", file: file)
        }
        return component
    }

    /// The start of the last content line that begins inside `buffer[0..<count]` and can
    /// be told apart (the byte after a line end that is no fold, nor the LF of a CRLF).
    static func lastLineStart(_ buffer: [UInt8], _ count: Int) -> Int? {
        var position = count - 1
        while position > 0 {
            let previous = buffer[position - 1], byte = buffer[position]
            if (previous == ASCII.lf || (previous == ASCII.cr && byte != ASCII.lf))
                && byte != ASCII.space && byte != ASCII.tab {
                return position
            }
            position -= 1
        }
        return nil
    }

    private func bytes(_ range: Range<Int>) throws(ICalError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let read = try readInto(&result, at: done, count: range.count - done, offset: range.lowerBound + done)
            if read == 0 { break }
            done += read
        }
        guard done == range.count else {
            throw ICalError(.io, "the file became shorter while it was read", file: file)
        }
        return result
    }

    /// One `pread` (retried on EINTR); 0 at the end of the file.
    private func readInto(_ buffer: inout [UInt8], at index: Int, count: Int, offset: Int) throws(ICalError) -> Int {
        let descriptor = try openDescriptor()
        while true {
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + index, count, off_t(offset)) }
            if read >= 0 {
                if read == 0 && count > 0 && offset < size {
                    throw ICalError(.io, "the file became shorter while it was read", file: file)
                }
                return read
            }
            if errno != EINTR { throw ICalError(.io, "cannot read: \(String(cString: strerror(errno)))", file: file) }
        }
    }
}
