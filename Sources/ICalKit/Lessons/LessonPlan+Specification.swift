internal import Yams

/// Reading a lesson plan from a YAML specification.
///
/// A specification describes a whole term. Every key but `term` and `lessons` is optional;
/// unknown keys are errors, so a misspelt key is not silently ignored. Values are read as
/// text (quoting `"16:00"` is allowed but not needed):
///
/// ```yaml
/// name: Music school, autumn term 2026   # X-WR-CALNAME
/// timezone: Europe/Berlin                # IANA name; default: the system zone
/// floating: false                        # true: floating local times, no zone
/// term:
///   from: 2026-09-07                     # first day of the term
///   until: 2026-12-18                    # last day (inclusive), or
///   # count: 12                          # lessons per slot, holidays not counted
/// alarms: [15m]                          # default alarms, before each lesson
/// holidays:
///   - 2026-10-03                         # a date
///   - 2026-12-21..2027-01-01             # an inclusive range
///   - from: 2026-10-19                   # a range as a mapping (name is a comment)
///     until: 2026-10-30
///     name: Autumn break
///   - file: holidays.ics                 # every day an event covers; relative to this file
/// lessons:
///   - title: Piano                       # SUMMARY (required)
///     teacher: Ms Keys                   # DESCRIPTION "Teacher: Ms Keys"
///     room: Room 12                      # LOCATION
///     days: [TU, TH]                     # or "TU,TH", Tuesday, tue (required)
///     time: "16:00"                      # wall-clock start (required)
///     length: 45m                        # 45m, 1h, 1h30m (required)
///     every: 2                           # weeks; default 1
///     notes: Bring your book             # more DESCRIPTION
///     alarms: [10m, 1d]                  # instead of the default alarms
/// ```
///
/// Errors name the file, the line and the key (`term.yaml:12: lessons[0].time: '25:00' is
/// not a time of day ...`).
extension LessonPlan {
    /// The keys a specification may have at its top level.
    static let specificationKeys = ["name", "timezone", "floating", "term", "alarms", "holidays", "lessons"]
    /// The keys of `term`.
    static let termKeys = ["from", "until", "count"]
    /// The keys of a lesson slot.
    static let slotKeys = ["title", "teacher", "room", "notes", "days", "time", "length", "every", "alarms"]

    /// Reads a plan from a YAML specification file (see the schema above).
    ///
    /// - Parameters:
    ///   - path: the specification file; holiday files are found relative to its folder.
    ///   - defaultTimeZoneIdentifier: the zone when the specification names none and is not
    ///     floating (the system zone, for `ical`); nil makes a missing zone an error.
    ///   - reader: how holiday calendars are read.
    ///   - check: called with the path of each holiday file before it is read; what it
    ///     throws stops the reading.
    /// - Returns: the plan, and the problems found reading its holiday calendars.
    /// - Throws: ``ICalError`` with ``ICalError/Code-swift.struct/io`` when a file cannot be
    ///   read, or ``ICalError/Code-swift.struct/invalidArgument`` with the file and line of
    ///   an invalid value.
    public static func read(contentsOfSpecificationFile path: String, defaultTimeZoneIdentifier: String?,
                            reader: ICalReader = ICalReader(),
                            checkingFile check: @escaping (String) throws(ICalError) -> Void = { _ in }) throws(ICalError) -> (plan: LessonPlan, diagnostics: [Diagnostic]) {
        let bytes = try FileIO.readAll(path: path, limit: 1 << 20)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ICalError(.encoding, "the specification is not UTF-8 text", file: path)
        }
        let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        return try read(specification: text, file: path, directory: directory,
                        defaultTimeZoneIdentifier: defaultTimeZoneIdentifier, reader: reader, checkingFile: check)
    }

    /// Reads a plan from YAML specification text (see the schema above).
    ///
    /// - Parameters:
    ///   - text: the YAML.
    ///   - file: the name errors give.
    ///   - directory: the folder holiday files are relative to.
    ///   - defaultTimeZoneIdentifier: the zone when the specification names none and is not
    ///     floating; nil makes a missing zone an error.
    ///   - reader: how holiday calendars are read.
    ///   - check: called with the path of each holiday file before it is read; what it
    ///     throws stops the reading (a tool checks there that the file is one it may read).
    public static func read(specification text: String, file: String? = nil, directory: String = ".",
                            defaultTimeZoneIdentifier: String?,
                            reader: ICalReader = ICalReader(),
                            checkingFile check: @escaping (String) throws(ICalError) -> Void = { _ in }) throws(ICalError) -> (plan: LessonPlan, diagnostics: [Diagnostic]) {
        var specification = SpecificationReader(file: file, directory: directory, reader: reader, check: check)
        do {
            return try specification.read(text, defaultTimeZoneIdentifier: defaultTimeZoneIdentifier)
        } catch let error as ICalError {
            throw error
        } catch {
            throw specification.yamlError(error)
        }
    }
}

/// Walks a composed YAML tree into a ``LessonPlan``, with the line of every value at hand.
private struct SpecificationReader {
    let file: String?
    let directory: String
    let reader: ICalReader
    let check: (String) throws(ICalError) -> Void
    var diagnostics: [Diagnostic] = []

    init(file: String?, directory: String, reader: ICalReader, check: @escaping (String) throws(ICalError) -> Void) {
        self.check = check
        self.file = file
        self.directory = directory
        self.reader = reader
    }

    mutating func read(_ text: String, defaultTimeZoneIdentifier: String?) throws -> (plan: LessonPlan, diagnostics: [Diagnostic]) {
        guard let root = try Yams.compose(yaml: text) else {
            throw ICalError(.invalidArgument, "the specification is empty: it needs term and lessons", file: file, line: 1)
        }
        let top = try mapping(root, path: "the specification", keys: LessonPlan.specificationKeys)

        guard let termNode = top["term"] else { throw problem(root, "term", "is missing: give term.from and term.until or term.count") }
        let term = try mapping(termNode, path: "term", keys: LessonPlan.termKeys)
        guard let fromNode = term["from"] else { throw problem(termNode, "term.from", "is missing") }
        let from = try value(fromNode, "term.from", LessonText.date)
        let end: LessonPlan.End
        switch (term["until"], term["count"]) {
        case (let until?, nil):
            let last = try value(until, "term.until", LessonText.date)
            guard last >= from else { throw problem(until, "term.until", "\(last) is before term.from (\(from))") }
            end = .until(last)
        case (nil, let count?): end = .count(try integer(count, "term.count"))
        case (_?, let count?): throw problem(count, "term.count", "cannot be given together with term.until")
        case (nil, nil): throw problem(termNode, "term", "needs until (the last day) or count (the number of lessons)")
        }

        let floating = try top["floating"].map { try boolean($0, "floating") } ?? false
        var zone: String?
        if let node = top["timezone"] {
            if floating { throw problem(node, "timezone", "cannot be given together with floating: true") }
            let name = try string(node, "timezone")
            if name.lowercased() == "floating" {
                throw problem(node, "timezone", "floating is not a zone: write floating: true instead")
            }
            guard TimeZoneResolver.resolveStandard(name)?.rules is IANATimeZone else {
                throw problem(node, "timezone", "unknown time zone '\(name)': use an IANA name such as Europe/Berlin")
            }
            zone = name
        } else if !floating {
            guard let defaultTimeZoneIdentifier else {
                throw problem(root, "timezone", "is missing and there is no system zone: name one, or set floating: true")
            }
            zone = defaultTimeZoneIdentifier
        }

        var plan = LessonPlan(from: from, end: end, timeZoneIdentifier: zone)
        plan.sourceFile = file
        if let node = top["name"] { plan.name = try string(node, "name") }
        if let node = top["alarms"] { plan.alarms = try durations(node, "alarms") }
        if let node = top["holidays"] { plan.holidays = try holidays(node) }

        guard let lessonsNode = top["lessons"] else { throw problem(root, "lessons", "is missing: describe at least one lesson") }
        let slots = try list(lessonsNode, "lessons")
        guard !slots.isEmpty else { throw problem(lessonsNode, "lessons", "is empty: describe at least one lesson") }
        for (index, node) in slots.enumerated() {
            plan.slots.append(try slot(node, path: "lessons[\(index)]"))
        }
        return (plan, diagnostics)
    }

    // MARK: Parts

    private mutating func holidays(_ node: Node) throws -> LessonHolidays {
        var holidays = LessonHolidays()
        for (index, entry) in try list(node, "holidays").enumerated() {
            let path = "holidays[\(index)]"
            if entry.scalar != nil {
                holidays.insert(try value(entry, path, LessonText.dateRange))
                continue
            }
            let fields = try mapping(entry, path: path, keys: ["date", "from", "until", "file", "name"])
            switch (fields["date"], fields["from"], fields["until"], fields["file"]) {
            case (let date?, nil, nil, nil):
                let day = try value(date, path + ".date", LessonText.date)
                holidays.insert(day...day, name: try fields["name"].map { try string($0, path + ".name") })
            case (nil, let from?, let until?, nil):
                let first = try value(from, path + ".from", LessonText.date)
                let last = try value(until, path + ".until", LessonText.date)
                guard first <= last else { throw problem(until, path + ".until", "\(last) is before \(path).from (\(first))") }
                holidays.insert(first...last, name: try fields["name"].map { try string($0, path + ".name") })
            case (nil, nil, nil, let fileNode?):
                let name = try string(fileNode, path + ".file")
                let resolved = name.hasPrefix("/") ? name : directory + "/" + name
                do {
                    try check(resolved)
                    diagnostics += try holidays.add(contentsOfFile: resolved, reader: reader)
                } catch {
                    var located = problem(fileNode, path + ".file", "'\(name)' cannot be used: \(error.message)")
                    located.code = error.code == .invalidArgument || error.code == .notPermitted ? error.code : .io
                    throw located
                }
            default:
                throw problem(entry, path, "give a date, a range (from and until) or a file")
            }
        }
        return holidays
    }

    private func slot(_ node: Node, path: String) throws -> LessonPlan.Slot {
        let fields = try mapping(node, path: path, keys: LessonPlan.slotKeys)
        func required(_ key: String) throws -> Node {
            guard let value = fields[key] else { throw problem(node, path + "." + key, "is missing") }
            return value
        }
        let title = try string(try required("title"), path + ".title")
        guard !title.isEmpty else { throw problem(node, path + ".title", "is empty") }
        let daysNode = try required("days")
        let days: [RecurrenceRule.Weekday]
        if daysNode.sequence != nil {
            let words = try list(daysNode, path + ".days").map { try string($0, path + ".days") }
            do {
                days = try LessonText.weekdays(words.joined(separator: ","))
            } catch {
                throw problem(daysNode, path + ".days", error.message)
            }
        } else {
            days = try value(daysNode, path + ".days", LessonText.weekdays)
        }
        let interval = try fields["every"].map { try integer($0, path + ".every") } ?? 1
        return LessonPlan.Slot(
            title: title,
            teacher: try fields["teacher"].map { try string($0, path + ".teacher") },
            location: try fields["room"].map { try string($0, path + ".room") },
            notes: try fields["notes"].map { try string($0, path + ".notes") },
            weekdays: days,
            time: try value(try required("time"), path + ".time", LessonText.timeOfDay),
            length: try value(try required("length"), path + ".length", LessonText.duration),
            interval: interval,
            alarms: try fields["alarms"].map { try durations($0, path + ".alarms") },
            sourceLine: node.mark?.line)
    }

    private func durations(_ node: Node, _ path: String) throws -> [Duration] {
        if node.scalar != nil { return [try value(node, path, LessonText.duration)] }
        return try list(node, path).map { try value($0, path, LessonText.duration) }
    }

    // MARK: Values

    /// A mapping's values by key, after checking that every key is known and given once.
    private func mapping(_ node: Node, path: String, keys: [String]) throws -> [String: Node] {
        guard let mapping = node.mapping else { throw problem(node, path, "must be a mapping of keys to values") }
        var result: [String: Node] = [:]
        for (key, value) in mapping {
            guard let name = key.scalar?.string else { throw problem(key, path, "has a key that is not text") }
            guard keys.contains(name) else {
                throw problem(key, path, "unknown key '\(name)' (known: \(keys.joined(separator: ", ")))")
            }
            guard result[name] == nil else { throw problem(key, name, "is given twice") }
            result[name] = value
        }
        return result
    }

    private func list(_ node: Node, _ path: String) throws -> [Node] {
        if let sequence = node.sequence { return Array(sequence) }
        if isNull(node) { return [] }
        throw problem(node, path, "must be a list")
    }

    private func string(_ node: Node, _ path: String) throws -> String {
        guard let scalar = node.scalar else { throw problem(node, path, "must be a single value, not a list or mapping") }
        return isNull(node) ? "" : scalar.string
    }

    private func integer(_ node: Node, _ path: String) throws -> Int {
        let text = try string(node, path)
        guard let number = Int(text), number >= 1, number <= LessonPlan.maximumLessons else {
            throw problem(node, path, "'\(text)' is not a whole number from 1 to \(LessonPlan.maximumLessons)")
        }
        return number
    }

    private func boolean(_ node: Node, _ path: String) throws -> Bool {
        let text = try string(node, path)
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw problem(node, path, "'\(text)' is not true or false")
        }
    }

    /// A value read with one of ``LessonText``'s functions, its error placed at the node.
    private func value<T>(_ node: Node, _ path: String, _ parse: (String) throws(ICalError) -> T) throws -> T {
        let text = try string(node, path)
        do {
            return try parse(text)
        } catch {
            throw problem(node, path, error.message)
        }
    }

    private func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    private func problem(_ node: Node, _ path: String, _ message: String) -> ICalError {
        ICalError(.invalidArgument, "\(path): \(message)", file: file, line: node.mark?.line)
    }

    /// A YAML syntax error, at its line.
    func yamlError(_ error: any Error) -> ICalError {
        guard let yaml = error as? YamlError else {
            return ICalError(.invalidArgument, "the specification cannot be read: \(error)", file: file)
        }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ICalError(.invalidArgument, "not valid YAML: \(problem)", file: file, line: mark.line)
        default:
            let text = "\(yaml)".split(separator: "\n").first.map(String.init) ?? "invalid"
            return ICalError(.invalidArgument, "not valid YAML: \(text)", file: file)
        }
    }
}
