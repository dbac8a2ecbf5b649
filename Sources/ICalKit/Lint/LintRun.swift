#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// A whole `ical validate` run over files of any size: each iCalendar file (and standard
/// input) is read one top-level component at a time with ``ICalComponentStream``, and what
/// has to outlive a component is kept in ``MemoryBudget``'s room and spilled to temporary
/// files past it. The findings, their order and the counts are those of ``Linter`` and
/// ``LintSummary`` over whole reads.
///
/// How the rules that look across components are kept:
/// - each VCALENDAR's VTIMEZONEs are kept (counted against the budget) with the TZIDs and
///   years its components use, so its time-zone findings are made when it ends;
/// - components are checked as they come, against the VTIMEZONEs and METHOD read so far;
///   when a VTIMEZONE or a METHOD comes after them (rare), that VCALENDAR's components are
///   checked again in a second pass over the file, and the first findings dropped;
/// - every UID (with RECURRENCE-ID, SEQUENCE and place) and every finding is a record in a
///   sort that spills to disk (``RecordSorter``): duplicate UIDs, within a file and across
///   the run, are found by sorting the records, and findings come out by file and line.
///
/// jCal input is read whole, as ``Linter/lint(contentsOfFile:)`` does, within
/// ``ICalReader/Limits/maxInputSize``.
///
/// ```swift
/// let run = LintRun(memory: MemoryBudget(bytes: 64 << 20))
/// try run.add(contentsOfFile: "big.ics")
/// let totals = try run.finish()
/// try run.forEachFinding { finding, acrossFiles in print(finding) }
/// print(totals.line)
/// ```
public final class LintRun {
    /// The counts of a run: the summary line's numbers.
    public struct Totals: Sendable, Hashable {
        /// The number of files checked (unreadable ones included).
        public var fileCount = 0
        /// The number of components directly inside their calendars.
        public var componentCount = 0
        /// The number of errors (findings, and inputs that could not be read).
        public var errorCount = 0
        /// The number of warnings.
        public var warningCount = 0

        /// `3 files, 10 components: 0 errors, 1 warning`, as ``LintSummary/line``.
        public var line: String {
            LintSummary.line(files: fileCount, components: componentCount, errors: errorCount, warnings: warningCount)
        }
    }

    /// The linter whose rules and limits apply.
    public let linter: Linter
    /// The memory the run's records may hold before they spill.
    public let memory: MemoryBudget
    /// The counts so far (final after ``finish()``).
    public private(set) var totals = Totals()

    private let findings: RecordSorter
    private let identities: RecordSorter
    private var fileIndex = 0
    private var finished = false
    /// Files that could not be read to the end: their records are passed over.
    private var failedFiles: Set<Int> = []
    /// Calendars (file index, calendar index) whose first-pass component findings are dropped.
    private var checkedAgain: Set<[Int]> = []
    /// Part of the budget each file's kept VTIMEZONEs may take.
    private var timeZoneBudget: Int { memory.bytes / 4 }

    /// Creates a run.
    public convenience init(linter: Linter = Linter(), memory: MemoryBudget = .default) {
        self.init(linter: linter, memory: memory, recordMemory: memory.bytes / 4)
    }

    /// A run whose findings and UIDs each spill past `recordMemory` bytes (package: tests
    /// spill after a few records).
    package init(linter: Linter = Linter(), memory: MemoryBudget = .default, recordMemory: Int) {
        self.linter = linter
        self.memory = memory
        findings = RecordSorter(memoryLimit: recordMemory)
        identities = RecordSorter(memoryLimit: recordMemory)
    }

    /// Whether findings or UIDs were spilled to a temporary file (for tests).
    package var spilled: Bool { findings.spilled || identities.spilled }

    /// Counts an input that could not be read at all (reported by the caller): one file,
    /// one error.
    public func addUnreadable() {
        totals.fileCount += 1
        totals.errorCount += 1
    }

    /// Checks a file, or standard input for `-` (named `<stdin>`). A file that cannot be
    /// read at all adds nothing.
    ///
    /// - Throws: ``ICalError`` when the file cannot be read at all; count it with
    ///   ``addUnreadable()``.
    public func add(contentsOfFile path: String) throws(ICalError) {
        precondition(!finished, "LintRun.add after finish")
        let reader = ICalReader(mode: .lenient, limits: .init(maxInputSize: linter.maxInputSize))
        let file = FileLint(run: self, index: fileIndex)
        fileIndex += 1
        do {
            if let stream = try ICalComponentStream.open(path, reader: reader) {
                try file.lint(stream, path: path)
            } else {
                let report = try linter.lint(contentsOfFile: path)
                try file.add(report)
            }
        } catch {
            failedFiles.insert(file.index)
            throw error
        }
        totals.fileCount += 1
        totals.componentCount += file.componentCount
        totals.errorCount += file.errors
        totals.warningCount += file.warnings
        for calendar in file.checkedAgain { checkedAgain.insert([file.index, calendar]) }
    }

    /// Looks for UIDs used again, within each file and across files, and makes the counts
    /// final. Call it once, after the last ``add(contentsOfFile:)``.
    public func finish() throws(ICalError) -> Totals {
        precondition(!finished, "LintRun.finish called twice")
        finished = true
        // One group per UID, RECURRENCE-ID and SEQUENCE, in file order, then read order.
        var group: (key: [UInt8], first: Identity, firstInFile: Identity)?
        do {
            try identities.forEachSorted { key, payload in
                var payload = payload
                let identity = Identity(payload: &payload)
                guard !self.failedFiles.contains(identity.fileIndex) else { return }
                let groupKey = Array(key.dropLast(16))
                guard let current = group, current.key == groupKey else {
                    group = (groupKey, identity, identity)
                    return
                }
                if current.firstInFile.fileIndex != identity.fileIndex { group?.firstInFile = identity }
                let firstInFile = group!.firstInFile
                if firstInFile.order != identity.order && !identity.checkedInFile {
                    try self.addFinding(identity.duplicate(of: firstInFile, acrossFiles: false), file: identity.fileIndex,
                                        acrossFiles: false, order: 0)
                }
                if current.first.fileIndex != identity.fileIndex {
                    try self.addFinding(identity.duplicate(of: current.first, acrossFiles: true), file: identity.fileIndex,
                                        acrossFiles: true, order: identity.order)
                }
            }
        } catch let error as ICalError {
            throw error
        } catch {
            throw ICalError(.io, "\(error)")
        }
        return totals
    }

    /// Calls `body` with every finding, by file (in the order added), then line, then the
    /// order of the checks, as ``Linter`` sorts a file's findings; after a file's own
    /// findings come those of UIDs an earlier file has (`acrossFiles`), as
    /// ``LintSummary/add(_:)`` appends them. Call it once, after ``finish()``.
    public func forEachFinding(_ body: (LintFinding, _ acrossFiles: Bool) throws -> Void) throws {
        precondition(finished, "LintRun.forEachFinding before finish")
        try findings.forEachSorted { key, payload in
            var payload = payload
            let acrossFiles = payload.int() == 1
            let file = payload.int(), calendar = payload.int(), firstPass = payload.int() == 1
            guard !failedFiles.contains(file), !(firstPass && checkedAgain.contains([file, calendar])) else { return }
            try body(Self.finding(&payload), acrossFiles)
        }
    }

    // MARK: Records

    /// A finding's sort key: its file, its part (own findings, then those across files),
    /// line, the source that found it, its calendar and whether it is about the calendar
    /// or a component; records with equal keys keep the order they were added in.
    private func addFinding(_ finding: LintFinding, file: Int, acrossFiles: Bool, order: Int,
                            rank: Int = 3, calendar: Int = 0, part: Int = 0, firstPass: Bool = false) throws(ICalError) {
        var key = RecordSorter.Key()
        key.append(file)
        key.append(acrossFiles ? 1 : 0)
        key.append(acrossFiles ? order : finding.line)
        key.append(rank)
        key.append(calendar)
        key.append(part)
        var payload = RecordSorter.Payload()
        payload.append(acrossFiles ? 1 : 0)
        payload.append(file)
        payload.append(calendar)
        payload.append(firstPass ? 1 : 0)
        Self.append(finding, to: &payload)
        if rank == Rank.duplicate {
            if finding.severity == .error { totals.errorCount += 1 } else { totals.warningCount += 1 }
        }
        try findings.add(key: key, payload: payload)
    }

    fileprivate func add(_ finding: LintFinding, file: Int, rank: Int, calendar: Int, part: Int,
                         firstPass: Bool) throws(ICalError) {
        try addFinding(finding, file: file, acrossFiles: false, order: 0, rank: rank, calendar: calendar, part: part,
                       firstPass: firstPass)
    }

    fileprivate func add(_ identity: Identity) throws(ICalError) {
        var key = RecordSorter.Key()
        key.append(identity.uid)
        key.append(identity.recurrenceIdentifier)
        key.append(identity.sequence.map { $0 < Int.max ? $0 + 1 : $0 } ?? Int.min)
        key.append(identity.fileIndex)
        key.append(identity.order)
        var payload = RecordSorter.Payload()
        identity.append(to: &payload)
        try identities.add(key: key, payload: payload)
    }

    private static func append(_ finding: LintFinding, to payload: inout RecordSorter.Payload) {
        payload.append(finding.severity == .error ? 1 : 0)
        payload.append(finding.rule.rawValue)
        payload.append(finding.file)
        payload.append(finding.line)
        payload.append(finding.component)
        payload.append(finding.property)
        payload.append(finding.message)
    }

    private static func finding(_ payload: inout RecordSorter.Payload) -> LintFinding {
        let severity: Diagnostic.Severity = payload.int() == 1 ? .error : .warning
        let rule = LintRule(rawValue: payload.string() ?? "")
        let file = payload.string() ?? ""
        let line = payload.int()
        let component = payload.string()
        let property = payload.string()
        let message = payload.string() ?? ""
        return LintFinding(severity, rule, file: file, line: line, component: component, property: property, message: message)
    }

    /// A component's UID and place, as ``LintReport/Identity`` with its file's index and
    /// its order in the file.
    fileprivate struct Identity {
        var uid: String
        var recurrenceIdentifier: String
        var sequence: Int?
        var file: String
        var fileIndex: Int
        var order: Int
        var line: Int
        var component: String
        /// Whether duplicates within its file were already looked for (a file read whole).
        var checkedInFile: Bool

        init(uid: String, recurrenceIdentifier: String, sequence: Int?, file: String, fileIndex: Int, order: Int,
             line: Int, component: String, checkedInFile: Bool) {
            self.uid = uid
            self.recurrenceIdentifier = recurrenceIdentifier
            self.sequence = sequence
            self.file = file
            self.fileIndex = fileIndex
            self.order = order
            self.line = line
            self.component = component
            self.checkedInFile = checkedInFile
        }

        init(payload: inout RecordSorter.Payload) {
            uid = payload.string() ?? ""
            recurrenceIdentifier = payload.string() ?? ""
            let hasSequence = payload.int() == 1
            let value = payload.int()
            sequence = hasSequence ? value : nil
            file = payload.string() ?? ""
            fileIndex = payload.int()
            order = payload.int()
            line = payload.int()
            component = payload.string() ?? ""
            checkedInFile = payload.int() == 1
        }

        func append(to payload: inout RecordSorter.Payload) {
            payload.append(uid)
            payload.append(recurrenceIdentifier)
            payload.append(sequence == nil ? 0 : 1)
            payload.append(sequence ?? 0)
            payload.append(file)
            payload.append(fileIndex)
            payload.append(order)
            payload.append(line)
            payload.append(component)
            payload.append(checkedInFile ? 1 : 0)
        }

        /// The warning for this component, whose UID `earlier` has: within a file as
        /// ``Linter`` words it, across files as ``LintSummary`` does.
        func duplicate(of earlier: Identity, acrossFiles: Bool) -> LintFinding {
            let sequence = self.sequence.map { "the same SEQUENCE \($0)" } ?? "no SEQUENCE"
            let recurrence = recurrenceIdentifier.isEmpty ? "" : " and RECURRENCE-ID \(recurrenceIdentifier)"
            let message = acrossFiles
                ? "UID \"\(uid)\"\(recurrence) is also in \(earlier.file):\(earlier.line) with \(sequence); programs keep either one"
                : "UID \"\(uid)\"\(recurrence) is used again (first at line \(earlier.line)) with \(sequence); programs keep either one"
            return LintFinding(.warning, .duplicateUID, file: file, line: line, component: component, property: "UID",
                               message: message)
        }
    }

    // MARK: One file

    /// The sources of a file's findings, in the order ``Linter`` makes them.
    fileprivate enum Rank {
        static let reader = 0, longLine = 1, calendar = 2, duplicate = 3
    }

    /// One file being checked.
    fileprivate final class FileLint {
        unowned let run: LintRun
        let index: Int
        var componentCount = 0
        var errors = 0
        var warnings = 0
        private var order = 0

        init(run: LintRun, index: Int) {
            self.run = run
            self.index = index
        }

        private func count(_ finding: LintFinding) {
            if finding.severity == .error { errors += 1 } else { warnings += 1 }
        }

        func add(_ finding: LintFinding, rank: Int, calendar: Int = 0, part: Int = 0, firstPass: Bool = false) throws(ICalError) {
            count(finding)
            try run.add(finding, file: index, rank: rank, calendar: calendar, part: part, firstPass: firstPass)
        }

        /// A report of a file read whole (jCal): its findings as they are, its UIDs for
        /// the duplicates across files.
        func add(_ report: LintReport) throws(ICalError) {
            componentCount = report.componentCount
            for finding in report.findings { try add(finding, rank: Rank.reader) }
            for identity in report.identities {
                try run.add(Identity(uid: identity.uid, recurrenceIdentifier: identity.recurrenceIdentifier,
                                     sequence: identity.sequence, file: identity.file, fileIndex: index, order: order,
                                     line: identity.line, component: identity.component, checkedInFile: true))
                order += 1
            }
        }

        /// What is kept of one VCALENDAR while its components stream by.
        struct Calendar {
            var header: Component
            var timeZones: [Component] = []
            var uses = TZIDUses()
            var years = Linter.YearSpan()
            /// The resolver components are checked against as they come, once one came.
            var resolver: TimeZoneResolver?
            var hasMethod = false
            var reportedTimeZones: Set<String> = []
            /// Whether a VTIMEZONE or METHOD came after the first checked component.
            var late = false
            var errors = 0
            var warnings = 0
        }

        func lint(_ stream: ICalComponentStream, path: String) throws(ICalError) {
            let file = stream.file
            let linter = run.linter
            var calendars: [Calendar] = []
            var timeZoneBytes = 0
            var failure: ICalError?
            func checkComponent(_ component: Component, in state: inout Calendar, calendarIndex: Int,
                                firstPass: Bool) throws(ICalError) {
                guard let resolver = state.resolver else { return }
                for finding in linter.check(component, file: file, resolver: resolver, hasMethod: state.hasMethod,
                                            reportedTimeZones: &state.reportedTimeZones) {
                    if finding.severity == .error { state.errors += 1 } else { state.warnings += 1 }
                    try add(finding, rank: Rank.calendar, calendar: calendarIndex, part: 1, firstPass: firstPass)
                }
            }
            let summary = try stream.read { event in
                guard failure == nil else { return }
                do throws(ICalError) {
                    switch event {
                    case .component(let item):
                        while calendars.count <= item.calendarIndex { calendars.append(Calendar(header: item.calendar)) }
                        let component = item.component
                        var state = calendars[item.calendarIndex]
                        defer { calendars[item.calendarIndex] = state }
                        if component.matches(.timeZone) {
                            timeZoneBytes += item.location.bytes.count
                            guard timeZoneBytes <= run.timeZoneBudget else {
                                throw ICalError(.limitExceeded, "its VTIMEZONEs take more than \(run.timeZoneBudget) bytes, a quarter of the memory budget (\(run.memory)); give more with --memory", file: file)
                            }
                            state.timeZones.append(component)
                            if state.resolver != nil { state.late = true }
                            return
                        }
                        state.uses.visit(component)
                        state.years.add(component)
                        if state.resolver == nil {
                            var calendar = item.calendar
                            calendar.components = state.timeZones
                            state.resolver = TimeZoneResolver(calendar: calendar, file: file)
                            state.hasMethod = item.calendar.property(.method) != nil
                        }
                        try checkComponent(component, in: &state, calendarIndex: item.calendarIndex, firstPass: true)
                        try identify(component, file: file)
                    case .endOfCalendar(let header, let calendarIndex):
                        while calendars.count <= calendarIndex { calendars.append(Calendar(header: header)) }
                        calendars[calendarIndex].header = header
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            componentCount = summary.componentCounts.reduce(0, +)
            for diagnostic in summary.diagnostics {
                var finding = LintFinding(diagnostic, file: file)
                if let property = diagnostic.property, ["RRULE", "EXRULE"].contains(property.uppercased()) {
                    finding.rule = .invalidRecurrenceRule
                }
                try add(finding, rank: Rank.reader)
            }
            try longLines(path: path, file: file)
            // Each VCALENDAR's own findings, and its components again when they were checked early.
            var again: Set<Int> = []
            var resolvers: [Int: TimeZoneResolver] = [:]
            for (calendarIndex, header) in summary.calendars.enumerated() {
                while calendars.count <= calendarIndex { calendars.append(Calendar(header: header)) }
                var state = calendars[calendarIndex]
                var calendar = header
                calendar.components = state.timeZones
                let resolver = TimeZoneResolver(calendar: calendar, file: file, comparisonYears: state.years.years,
                                                childUses: state.uses)
                for finding in Linter.calendarFindings(calendar, resolver: resolver, file: file) {
                    try add(finding, rank: Rank.calendar, calendar: calendarIndex, part: 0)
                }
                if state.resolver != nil && (state.late || state.hasMethod != (header.property(.method) != nil)) {
                    again.insert(calendarIndex)
                    resolvers[calendarIndex] = resolver
                    errors -= state.errors
                    warnings -= state.warnings
                    state.timeZones = []
                }
                calendars[calendarIndex] = state
            }
            guard !again.isEmpty else { return }
            // A second pass for those calendars, with all their VTIMEZONEs and properties.
            checkedAgain = again
            var states: [Int: Calendar] = [:]
            for calendarIndex in again {
                var state = Calendar(header: summary.calendars[calendarIndex])
                state.resolver = resolvers[calendarIndex]
                state.hasMethod = summary.calendars[calendarIndex].property(.method) != nil
                states[calendarIndex] = state
            }
            _ = try stream.read { event in
                guard failure == nil, case .component(let item) = event, !item.component.matches(.timeZone),
                      var state = states[item.calendarIndex] else { return }
                do throws(ICalError) {
                    try checkComponent(item.component, in: &state, calendarIndex: item.calendarIndex, firstPass: false)
                } catch {
                    failure = error
                }
                states[item.calendarIndex] = state
            }
            if let failure { throw failure }
        }

        /// The calendars whose components were checked again (see ``LintRun``): their
        /// first-pass component findings are dropped.
        var checkedAgain: Set<Int> = []

        private func identify(_ component: Component, file: String) throws(ICalError) {
            guard Linter.itemKinds.contains(where: { component.matches($0) }), let uid = component.uid else { return }
            try run.add(Identity(uid: uid, recurrenceIdentifier: component.recurrenceIdentifier?.iCalendarText ?? "",
                                 sequence: component.sequence, file: file, fileIndex: index, order: order,
                                 line: component.line ?? 0, component: component.name.uppercased(), checkedInFile: false))
            order += 1
        }

        /// ``Linter/longLines(_:file:)`` over the file, a megabyte at a time.
        private func longLines(path: String, file: String) throws(ICalError) {
            let descriptor = path == "-" ? dup(0) : open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ICalError(.io, "cannot open: \(String(cString: strerror(errno)))", file: file) }
            defer { close(descriptor) }
            var offset: off_t = 0
            var line = 1
            var length = 0
            let size = 1 << 20
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
            defer { buffer.deallocate() }
            func finish() throws(ICalError) {
                if length > 75 {
                    try add(LintFinding(.warning, .lineTooLong, file: file, line: line,
                                        message: "line is \(length) octets long; RFC 5545 §3.1 folds lines at 75 octets"),
                            rank: Rank.longLine)
                }
            }
            /// The bytes of `start..<end` that are not CR.
            func counted(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> Int {
                var count = end - start
                var position = start
                while position < end, let found = memchr(position, 0x0D, end - position) {
                    count -= 1
                    position = UnsafeRawPointer(found) + 1
                }
                return count
            }
            while true {
                let read = pread(descriptor, buffer.baseAddress!, size, offset)
                if read < 0 {
                    if errno == EINTR { continue }
                    throw ICalError(.io, "cannot read: \(String(cString: strerror(errno)))", file: file)
                }
                if read == 0 { break }
                offset += off_t(read)
                var position = UnsafeRawPointer(buffer.baseAddress!)
                let end = position + read
                while position < end {
                    guard let found = memchr(position, 0x0A, end - position) else {
                        length += counted(position, end)
                        break
                    }
                    let newline = UnsafeRawPointer(found)
                    length += counted(position, newline)
                    try finish()
                    line += 1
                    length = 0
                    position = newline + 1
                }
            }
            try finish()
        }
    }
}
