// RepeatingLessons: books a weekly lesson into the user's calendar with write-only access
// (Apple's sample "Accessing Calendar using EventKit and EventKitUI", on a terminal). It asks
// for write-only access when the user first books a lesson, saves the recurring event into
// the calendar the user picked with the calendar chooser, else the default calendar, and
// can never read the calendar back.
//
//   RepeatingLessons                          list the lessons; b N books, s selects a calendar
//   RepeatingLessons --list                   list the lessons
//   RepeatingLessons --book 1                 book lesson 1 into the default calendar
//   RepeatingLessons --book 1 --choose-calendar   book it into a calendar picked on the terminal
//   RepeatingLessons --lessons FILE           another timetable (default samples/calendars/repeating-lessons.ics)
//
// The access prompt appears on the terminal when nothing is decided yet; decide beforehand
// with `ical privacy grant org.openeventkit.samples.RepeatingLessons --events write-only`.
import Foundation
import OpenEventKit
import OpenEventKitUI

/// The sample's folder in the source tree, to find its Info.plist and the sample calendars
/// both under `swift run` and when `.build/debug/RepeatingLessons` is run by hand.
let sampleFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

// Linux: the app's manifest (on Apple's systems, the Info.plist of the app bundle).
if ProcessInfo.processInfo.environment[AppManifest.environmentVariable] == nil {
    do {
        try AppManifest.useAsMain(contentsOfFile: sampleFolder.appendingPathComponent("Info.plist").path)
    } catch {
        print("RepeatingLessons: \(error)")
        exit(1)
    }
}
let bundleIdentifier = (try? AppManifest.main().bundleIdentifier) ?? "org.openeventkit.samples.RepeatingLessons"

/// The app's calendar work: access, the chosen calendar, saving a lesson.
@MainActor
final class EventStoreManager: NSObject, EKCalendarChooserDelegate {
    let store = EKEventStore()
    /// The calendar the user chose; nil saves into the default calendar.
    var selectedCalendar: EKCalendar?

    var authorizationStatus: EKAuthorizationStatus { EKEventStore.authorizationStatus(for: .event) }

    /// Whether the app may add events (write-only, or more).
    var canAddEvents: Bool { authorizationStatus == .writeOnly || authorizationStatus == .fullAccess }

    /// Asks for write-only access; the prompt shows only when nothing is decided yet.
    func setupEventStore() async -> Bool {
        do {
            return try await store.requestWriteOnlyAccessToEvents()
        } catch {
            print("RepeatingLessons: \(error)")
            return false
        }
    }

    /// Saves the lesson as a recurring event.
    func save(_ lesson: RepeatingLesson) throws {
        let event = EKEvent(eventStore: store)
        event.title = lesson.title
        event.timeZone = lesson.timeZone
        event.startDate = lesson.start
        event.endDate = lesson.end
        event.location = lesson.location
        event.notes = lesson.notes
        event.addRecurrenceRule(lesson.recurrenceRule)
        event.calendar = selectedCalendar ?? store.defaultCalendarForNewEvents
        try store.save(event, span: .futureEvents)
    }

    /// Shows the calendar chooser (Linux: on the terminal).
    func selectCalendar() {
        let chooser = EKCalendarChooser(selectionStyle: .single, displayStyle: .writableCalendarsOnly, entityType: .event, eventStore: store)
        chooser.showsDoneButton = true
        chooser.showsCancelButton = true
        if let selectedCalendar { chooser.selectedCalendars = [selectedCalendar] }
        chooser.delegate = self
        chooser.present()   // Linux: instead of present(chooser, animated: true)
    }

    func calendarChooserDidFinish(_ calendarChooser: EKCalendarChooser) {
        selectedCalendar = calendarChooser.selectedCalendars.first
        print(selectedCalendar == nil ? "No calendar chosen: lessons go to your default calendar."
              : "Calendar chosen: lessons go there (RepeatingLessons cannot see its name or its events).")
    }

    func calendarChooserDidCancel(_ calendarChooser: EKCalendarChooser) {
        print("No calendar chosen: lessons go to \(selectedCalendar == nil ? "your default calendar" : "the calendar chosen before").")
    }
}

// MARK: Arguments

var arguments = Array(CommandLine.arguments.dropFirst())
var listOnly = false
var bookNumber: Int?
var chooseCalendar = false
var timetablePath = sampleFolder.deletingLastPathComponent().appendingPathComponent("calendars/repeating-lessons.ics").path
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--list": listOnly = true
    case "--choose-calendar": chooseCalendar = true
    case "--book":
        guard let value = arguments.first.flatMap({ Int($0) }) else { print("RepeatingLessons: --book needs a lesson number"); exit(64) }
        arguments.removeFirst()
        bookNumber = value
    case "--lessons":
        guard let value = arguments.first else { print("RepeatingLessons: --lessons needs a file"); exit(64) }
        arguments.removeFirst()
        timetablePath = value
    case "-h", "--help":
        print("usage: RepeatingLessons [--list | --book N [--choose-calendar]] [--lessons FILE]")
        exit(0)
    default:
        print("RepeatingLessons: unknown argument '\(argument)' (see --help)")
        exit(64)
    }
}

// MARK: The app

let lessons: [RepeatingLesson]
do { lessons = try RepeatingLesson.catalogue(at: timetablePath) } catch {
    print("RepeatingLessons: cannot read the timetable: \(error)")
    exit(1)
}

let manager = EventStoreManager()
print("Repeating lessons:")
for (index, lesson) in lessons.enumerated() {
    print("  \(index + 1)  \(lesson.title): \(lesson.schedule)\(lesson.location.map { ", \($0)" } ?? "")")
}
print("Calendar access: \(manager.authorizationStatus).")
if listOnly { exit(0) }

/// Books lesson `number`: asks for access first, then (when asked to) lets the user pick
/// the calendar, then saves.
@MainActor func book(_ number: Int, choosing: Bool) async -> Bool {
    guard lessons.indices.contains(number - 1) else {
        print("There is no lesson \(number); choose 1 to \(lessons.count).")
        return false
    }
    let lesson = lessons[number - 1]
    guard await manager.setupEventStore() else {
        let status = manager.authorizationStatus
        print("RepeatingLessons may not add events to your calendar (\(status)).")
        if status == .notDetermined {
            print("Run it on a terminal to be asked, or allow it with: ical privacy grant \(bundleIdentifier) --events write-only")
        } else if status != .restricted {
            print("Allow it with: ical privacy grant \(bundleIdentifier) --events write-only")
        }
        return false
    }
    if choosing { manager.selectCalendar() }
    do {
        try manager.save(lesson)
    } catch {
        print("The lesson was not booked: \(error)")
        return false
    }
    print("Booked “\(lesson.title)”, \(lesson.schedule), into \(manager.selectedCalendar == nil ? "your default calendar" : "the calendar you chose").")
    let everything = manager.store.predicateForEvents(withStart: lesson.start, end: lesson.start.addingTimeInterval(365 * 86_400), calendars: nil)
    print("Lessons RepeatingLessons can read back: \(manager.store.events(matching: everything).count) (write-only access reads nothing).")
    return true
}

/// One line from standard input, read off the main actor.
func readLineAsync() async -> String? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: readLine()) }
    }
}

if let bookNumber {
    // Booking asks for access first; the chooser comes after, once the app may add events.
    exit(await book(bookNumber, choosing: chooseCalendar) ? 0 : 1)
}
if chooseCalendar {
    guard manager.canAddEvents else {
        let status = manager.authorizationStatus
        print("Select calendar is available once RepeatingLessons may add events (\(status)): "
              + (status == .notDetermined ? "book a lesson first." : "allow it with: ical privacy grant \(bundleIdentifier) --events write-only"))
        exit(1)
    }
    manager.selectCalendar()
    exit(0)
}
while true {
    let options = manager.canAddEvents ? "b N books lesson N, s selects the calendar, q quits" : "b N books lesson N, q quits"
    print("\(options): ", terminator: "")
    fflush(nil)
    guard let line = await readLineAsync()?.trimmingCharacters(in: .whitespaces).lowercased() else { break }
    let words = line.split(separator: " ")
    switch words.first {
    case "q"?, nil: exit(0)
    case "s"? where manager.canAddEvents: manager.selectCalendar()
    case "b"? where words.count == 2 && Int(words[1]) != nil: _ = await book(Int(words[1])!, choosing: false)
    default: print("Type b and a lesson number\(manager.canAddEvents ? ", s" : ""), or q.")
    }
}
