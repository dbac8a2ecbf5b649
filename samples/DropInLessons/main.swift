// DropInLessons: adds a drop-in lesson to the user's calendar through the system's event
// editor, with no calendar access at all (Apple's sample "Accessing Calendar using EventKit
// and EventKitUI", on a terminal). The app never asks for access; its Info.plist has no
// calendar usage description. It is told only whether the user saved or canceled.
//
//   DropInLessons              list the lessons and ask which one to book
//   DropInLessons --list       list the lessons
//   DropInLessons --book 2     book lesson 2 (the editor still asks you on the terminal)
//   DropInLessons --lessons FILE   another catalogue (default samples/calendars/drop-in-lessons.ics)
//
// The editor is `ical ui edit-event`: it is found through $OPENEVENTKIT_ICAL, beside this
// executable (`swift build` puts both in .build/debug), or on PATH.
import Foundation
import OpenEventKit
import OpenEventKitUI

/// The sample's folder in the source tree, to find its Info.plist and the sample calendars
/// both under `swift run` and when `.build/debug/DropInLessons` is run by hand.
let sampleFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

// Linux: the app's manifest. On Apple's systems the Info.plist is in the app bundle; here it
// is the Info.plist beside this file, unless $OPENEVENTKIT_MANIFEST names another one.
if ProcessInfo.processInfo.environment[AppManifest.environmentVariable] == nil {
    do {
        try AppManifest.useAsMain(contentsOfFile: sampleFolder.appendingPathComponent("Info.plist").path)
    } catch {
        print("DropInLessons: \(error)")
        exit(1)
    }
}

/// The editor's delegate: what the app learns from the editor.
final class BookingCoordinator: NSObject, EKEventEditViewDelegate {
    func eventEditViewController(_ controller: EKEventEditViewController, didCompleteWith action: EKEventEditViewAction) {
        switch action {
        case .saved:
            print("Saved to your calendar. DropInLessons is not told what you saved and cannot read your calendar.")
        case .canceled:
            print("Canceled: nothing was added.")
        case .deleted:
            print("Deleted.")
        }
    }
}

// MARK: Arguments

var arguments = Array(CommandLine.arguments.dropFirst())
var listOnly = false
var bookNumber: Int?
var cataloguePath = sampleFolder.deletingLastPathComponent().appendingPathComponent("calendars/drop-in-lessons.ics").path
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--list": listOnly = true
    case "--book":
        guard let value = arguments.first.flatMap({ Int($0) }) else { print("DropInLessons: --book needs a lesson number"); exit(64) }
        arguments.removeFirst()
        bookNumber = value
    case "--lessons":
        guard let value = arguments.first else { print("DropInLessons: --lessons needs a file"); exit(64) }
        arguments.removeFirst()
        cataloguePath = value
    case "-h", "--help":
        print("usage: DropInLessons [--list | --book N] [--lessons FILE]")
        exit(0)
    default:
        print("DropInLessons: unknown argument '\(argument)' (see --help)")
        exit(64)
    }
}

// MARK: The app

let lessons: [DropInLesson]
do { lessons = try DropInLesson.catalogue(at: cataloguePath) } catch {
    print("DropInLessons: cannot read the lessons: \(error)")
    exit(1)
}

print("Drop-in lessons:")
for (index, lesson) in lessons.enumerated() {
    print("  \(index + 1)  \(lesson.when)  \(lesson.title)\(lesson.location.map { ", \($0)" } ?? "")")
}
print("Calendar access: \(EKEventStore.authorizationStatus(for: .event)). DropInLessons never asks; the system's editor adds lessons.")
if listOnly { exit(0) }

let store = EKEventStore()
let coordinator = BookingCoordinator()

/// Proposes `lesson` in the system's event editor.
@MainActor func book(_ lesson: DropInLesson) {
    let event = EKEvent(eventStore: store)
    event.title = lesson.title
    event.timeZone = lesson.timeZone
    event.startDate = lesson.start
    event.endDate = lesson.end
    event.location = lesson.location

    let editor = EKEventEditViewController()
    editor.eventStore = store
    editor.event = event
    editor.editViewDelegate = coordinator
    editor.present()   // Linux: instead of present(editor, animated: true)

    // Not even what it just added: the app has no access.
    let window = store.predicateForEvents(withStart: lesson.start.addingTimeInterval(-86_400), end: lesson.end.addingTimeInterval(86_400), calendars: nil)
    print("Events DropInLessons can read around that day: \(store.events(matching: window).count).")
}

func choose(_ number: Int) -> DropInLesson? {
    guard lessons.indices.contains(number - 1) else {
        print("There is no lesson \(number); choose 1 to \(lessons.count).")
        return nil
    }
    return lessons[number - 1]
}

if let bookNumber {
    guard let lesson = choose(bookNumber) else { exit(1) }
    book(lesson)
} else {
    while true {
        print("Book which lesson? (a number; Enter quits) ", terminator: "")
        fflush(nil)
        guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { break }
        guard let number = Int(line) else {
            print("Type a lesson's number.")
            continue
        }
        if let lesson = choose(number) { book(lesson) }
    }
}
