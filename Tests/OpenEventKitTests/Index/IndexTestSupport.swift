import Foundation
import ICalKit
@testable import OpenEventKit

/// Writes seeded random items (as `.ics` text) into collection folders: every form of
/// date the index must bound conservatively.
struct RandomItemGenerator {
    var random: SeededGenerator

    static let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney",
                        "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles"]

    /// How a date value is written.
    enum Form: CaseIterable { case zoned, utc, floating, allDay }

    init(seed: UInt64) { random = SeededGenerator(state: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    /// A wall-clock time on a whole hour between 2024 and 2027.
    mutating func local() -> LocalDateTime {
        LocalDateTime(year: int(2024...2027), month: int(1...12), day: int(1...28), hour: int(0...23), minute: 0, second: 0)!
    }

    static func text(_ local: LocalDateTime, date: Bool) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(local.date.year)\(two(local.date.month))\(two(local.date.day))"
        return date ? day : day + "T\(two(local.time.hour))\(two(local.time.minute))\(two(local.time.second))"
    }

    /// `;PARAMS:VALUE` of a date or date-time in a form.
    static func value(_ local: LocalDateTime, _ form: Form, zone: String) -> String {
        switch form {
        case .zoned: return ";TZID=\(zone):" + text(local, date: false)
        case .utc: return ":" + text(local, date: false) + "Z"
        case .floating: return ":" + text(local, date: false)
        case .allDay: return ";VALUE=DATE:" + text(local, date: true)
        }
    }

    /// One item file's text; `index` makes its UID unique.
    mutating func item(_ index: Int) -> String {
        let uid = "item-\(index)@index-tests"
        let choice = int(0...99)
        if choice < 3 { return "this is not iCalendar \(index)\n" }                    // broken
        if choice < 10 { return todo(uid) }
        if choice < 13 { return wrap(component("VJOURNAL", uid: uid, lines: ["DTSTART" + Self.value(local(), .allDay, zone: "")])) }
        if choice < 16 { return overridesWithoutMaster(uid) }
        return event(uid)
    }

    mutating func wrap(_ components: String...) -> String {
        "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//OpenEventKit//index tests//EN\n" + components.joined() + "END:VCALENDAR\n"
    }

    func component(_ name: String, uid: String, lines: [String]) -> String {
        "BEGIN:\(name)\nUID:\(uid)\nDTSTAMP:20260101T000000Z\n" + lines.map { $0 + "\n" }.joined() + "END:\(name)\n"
    }

    mutating func todo(_ uid: String) -> String {
        let form = pick(Form.allCases), zone = pick(Self.zones)
        let start = local()
        var lines: [String] = []
        switch int(0...3) {
        case 0: break                                                                   // no dates at all
        case 1: lines.append("DUE" + Self.value(start, form, zone: zone))
        case 2:
            lines.append("DTSTART" + Self.value(start, form, zone: zone))
            lines.append("DUE" + Self.value(start.adding(seconds: Int64(int(1...72)) * 3600), form, zone: zone))
        default:
            lines.append("DTSTART" + Self.value(start, form, zone: zone))
            lines.append("RRULE:FREQ=WEEKLY;COUNT=\(int(1...10))")
        }
        return wrap(component("VTODO", uid: uid, lines: lines))
    }

    mutating func overridesWithoutMaster(_ uid: String) -> String {
        let form = pick(Form.allCases), zone = pick(Self.zones)
        var parts: [String] = []
        for _ in 0...int(0...2) {
            let identifier = local()
            var lines = ["RECURRENCE-ID" + Self.value(identifier, form, zone: zone)]
            if chance(60) { lines.append("DTSTART" + Self.value(local(), pick(Form.allCases), zone: pick(Self.zones))) }
            if chance(40) { lines.append("DURATION:PT\(int(1...30))H") }
            parts.append(component("VEVENT", uid: uid, lines: lines))
        }
        return "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//OpenEventKit//index tests//EN\n" + parts.joined() + "END:VCALENDAR\n"
    }

    mutating func event(_ uid: String) -> String {
        let form = pick(Form.allCases), zone = pick(Self.zones)
        let start = local()
        var lines = ["DTSTART" + Self.value(start, form, zone: zone)]
        // How it ends.
        switch int(0...3) {
        case 0: break
        case 1: lines.append("DURATION:" + (form == .allDay ? "P\(int(1...3))D" : pick(["PT\(int(1...5))H", "P1D", "PT30M"])))
        default:
            let endForm: Form = form == .allDay ? .allDay : (chance(80) ? form : pick([.utc, .zoned, .floating]))
            let length = form == .allDay ? Int64(int(1...4)) * 86_400 : Int64(int(0...48)) * 3600
            lines.append("DTEND" + Self.value(start.adding(seconds: length), endForm, zone: chance(80) ? zone : pick(Self.zones)))
        }
        // How it recurs.
        let frequency = pick(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
        let interval = int(1...3)
        var stepDays = 0
        switch int(0...9) {
        case 0...3: break                                                               // single
        case 4, 5:
            lines.append("RRULE:FREQ=\(frequency);INTERVAL=\(interval);COUNT=\(int(1...40))")
        case 6, 7:
            let until = start.adding(seconds: Int64(int(1...600)) * 86_400 + Int64(int(-12...12)) * 3600)
            let untilText: String
            switch form {
            case .allDay: untilText = Self.text(until, date: true)
            case .floating: untilText = chance(50) ? Self.text(until, date: false) : Self.text(until, date: false) + "Z"
            default: untilText = Self.text(until, date: false) + "Z"
            }
            lines.append("RRULE:FREQ=\(frequency);INTERVAL=\(interval);UNTIL=\(untilText)")
        default:
            lines.append("RRULE:FREQ=\(frequency);INTERVAL=\(interval)")
        }
        if lines.last?.hasPrefix("RRULE") == true, frequency == "DAILY" || frequency == "WEEKLY" {
            stepDays = (frequency == "DAILY" ? 1 : 7) * interval
        }
        if chance(25) {
            // RDATEs: single times or periods, in the series' form or another.
            let rdateForm: Form = form == .allDay ? .allDay : (chance(70) ? form : pick([.utc, .zoned]))
            let values = (0...int(0...2)).map { _ in Self.value(local(), rdateForm, zone: zone) }
            if chance(30), rdateForm != .allDay {
                let periods = values.map { value in
                    let text = String(value.split(separator: ":").last!)
                    return text + "/PT\(int(1...40))H"
                }
                let params = rdateForm == .zoned ? ";TZID=\(zone)" : ""
                lines.append("RDATE;VALUE=PERIOD\(params):" + periods.joined(separator: ","))
            } else {
                for value in values { lines.append("RDATE" + value) }
            }
        }
        var overrides: [String] = []
        if stepDays > 0 {
            if chance(40) {
                // EXDATE of some instances, sometimes in UTC against a floating series.
                let exForm: Form = form == .floating && chance(50) ? .utc : form
                lines.append("EXDATE" + Self.value(start.adding(seconds: Int64(stepDays * int(0...4)) * 86_400), exForm, zone: zone))
            }
            if chance(50) {
                for _ in 0...int(0...2) {
                    let instance = start.adding(seconds: Int64(stepDays * int(0...6)) * 86_400)
                    var overrideLines = ["RECURRENCE-ID" + Self.value(instance, form, zone: zone)]
                    if chance(8) { overrideLines[0] = "RECURRENCE-ID;RANGE=THISANDFUTURE" + Self.value(instance, form, zone: zone) }
                    if chance(75) {
                        // Moved anywhere: far away, in any form.
                        let moved = instance.adding(seconds: Int64(int(-900...900)) * 86_400 + Int64(int(-30...30)) * 3600)
                        overrideLines.append("DTSTART" + Self.value(moved, form == .allDay ? .allDay : pick([form, .utc, .floating, .zoned]),
                                                                   zone: pick(Self.zones)))
                    }
                    if chance(40) { overrideLines.append("DURATION:PT\(int(1...50))H") }
                    if chance(10) { overrideLines.append("STATUS:CANCELLED") }
                    overrides.append(component("VEVENT", uid: uid, lines: overrideLines))
                }
            }
        }
        return "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//OpenEventKit//index tests//EN\n"
            + component("VEVENT", uid: uid, lines: lines) + overrides.joined() + "END:VCALENDAR\n"
    }
}

/// One match, as the equivalence tests compare them.
struct MatchKey: Hashable, Comparable, CustomStringConvertible {
    var uid: String
    var recurrenceIdentifier: String
    var start: Int64
    var end: Int64
    var source: String

    init(_ match: OccurrenceQuery.Match) {
        uid = match.occurrence.uid
        recurrenceIdentifier = match.occurrence.recurrenceIdentifier.iCalendarText
            + (match.occurrence.recurrenceIdentifier.timeZoneIdentifier.map { " " + $0 } ?? "")
        start = match.startInstant
        end = match.endInstant
        source = match.source ?? ""
    }

    static func < (lhs: MatchKey, rhs: MatchKey) -> Bool {
        (lhs.start, lhs.end, lhs.uid, lhs.recurrenceIdentifier, lhs.source)
            < (rhs.start, rhs.end, rhs.uid, rhs.recurrenceIdentifier, rhs.source)
    }

    var description: String { "\(uid) \(recurrenceIdentifier) \(start)..\(end) in \(source)" }
}

/// Runs a query over the given items; returns the sorted matches and the diagnostics.
func queryMatches(_ items: [String: StoredItem], files: [String], window: Range<Int64>,
                  zone: any TimeZoneRules, kinds: Set<ComponentKind>) -> (matches: [MatchKey], diagnostics: [String]) {
    let sources = files.compactMap { path in items[path].map { OccurrenceQuery.Source(calendar: $0.calendar, name: path) } }
    let result = OccurrenceQuery(window: window, floatingZone: zone, kinds: kinds).run(sources)
    return (result.matches.map(MatchKey.init).sorted(), result.diagnostics.map(\.description).sorted())
}

/// Writes a file in place (same inode), then sets its modification time.
func rewriteInPlace(_ path: String, _ text: String, modified: Date) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
    try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
}
