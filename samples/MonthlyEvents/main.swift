// MonthlyEvents: lists every event of the coming month across all calendars and deletes the
// ones the user picks, with full access (Apple's sample "Accessing Calendar using EventKit
// and EventKitUI", on a terminal). It observes EKEventStoreChanged and lists the month again
// whenever the calendar changes: its own deletions, or another program's changes.
//
//   MonthlyEvents                      list the month and ask which events to delete
//   MonthlyEvents --list               list the month
//   MonthlyEvents --delete 2,5         delete events 2 and 5 of the list
//   MonthlyEvents --show 3             show event 3 in the system's event viewer
//                                      (EKEventViewController, editing allowed)
//   MonthlyEvents --from 2026-12-01    the month from this day (default: now)
//
// The access prompt appears on the terminal when nothing is decided yet; decide beforehand
// with `ical privacy grant org.openeventkit.samples.MonthlyEvents --events full`.
import Foundation
import OpenEventKit
import OpenEventKitUI

/// The sample's folder in the source tree, to find its Info.plist under `swift run` and
/// when `.build/debug/MonthlyEvents` is run by hand.
let sampleFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

// Linux: the app's manifest (on Apple's systems, the Info.plist of the app bundle).
if ProcessInfo.processInfo.environment[AppManifest.environmentVariable] == nil {
    do {
        try AppManifest.useAsMain(contentsOfFile: sampleFolder.appendingPathComponent("Info.plist").path)
    } catch {
        print("MonthlyEvents: \(error)")
        exit(1)
    }
}
let bundleIdentifier = (try? AppManifest.main().bundleIdentifier) ?? "org.openeventkit.samples.MonthlyEvents"

/// The app's calendar work: access, the month's events, deleting.
@MainActor
final class EventStoreManager {
    let store = EKEventStore()
    let start: Date
    let end: Date
    /// The events as last listed, in start order.
    private(set) var events: [EKEvent] = []
    /// Whether the month was listed once (changes before that, such as the access just
    /// granted, are part of the first listing).
    private var loaded = false
    /// The question the user is being asked, shown again after a change is listed.
    var pendingQuestion: String?

    init(from start: Date) {
        self.start = start
        end = Calendar.current.date(byAdding: .month, value: 1, to: start)!
    }

    /// Lists the month again whenever the calendar changes: the seed's loop over
    /// `NotificationCenter.notifications(named:)` (on Linux, OpenEventKit's addition), run in
    /// its own task on the main actor until the app ends.
    func listenForCalendarChanges() async {
        let center = NotificationCenter.default
        let notifications = center.notifications(named: .EKEventStoreChanged).map({ (notification: Notification) in notification.name })

        for await _ in notifications {
            storeChanged()
        }
    }

    /// Asks for full access; the prompt shows only when nothing is decided yet.
    func setupEventStore() async -> Bool {
        do {
            return try await store.requestFullAccessToEvents()
        } catch {
            print("MonthlyEvents: \(error)")
            return false
        }
    }

    /// Every occurrence of the month in every calendar, sorted by start date.
    func fetchEvents() -> [EKEvent] {
        let predicate = store.predicateForEvents(withStart: start, end: end, calendars: nil)
        return store.events(matching: predicate).sorted { $0.compareStartDate(with: $1) == .orderedAscending }
    }

    func loadEvents() {
        loaded = true
        events = fetchEvents()
        show()
    }

    private func storeChanged() {
        guard loaded, EKEventStore.authorizationStatus(for: .event) == .fullAccess else { return }
        let fresh = fetchEvents()
        guard key(fresh) != key(events) else { return }
        events = fresh
        if pendingQuestion != nil { print("") }
        print("The calendar changed (EKEventStoreChanged):")
        show()
        if let pendingQuestion {
            print(pendingQuestion, terminator: "")
            fflush(nil)
        }
    }

    private func key(_ events: [EKEvent]) -> [String] {
        events.map { "\($0.eventIdentifier ?? "")@\($0.occurrenceDate?.timeIntervalSince1970 ?? 0)" }
    }

    /// Removes the events (one occurrence each) in one batch: all of them or none.
    func removeEvents(_ selected: [EKEvent]) throws {
        do {
            for event in selected {
                try store.remove(event, span: .thisEvent, commit: false)
            }
            try store.commit()
        } catch {
            // A failed batch keeps failing until the store is reset.
            store.reset()
            throw error
        }
    }

    func show() {
        let day = DateFormatter(), time = DateFormatter()
        for formatter in [day, time] { formatter.locale = Locale(identifier: "en_US_POSIX") }
        day.dateFormat = "EEE d MMM yyyy"
        time.dateFormat = "HH:mm"
        print("Your events from \(day.string(from: start)) to \(day.string(from: end)) (\(TimeZone.current.identifier)): \(events.count)")
        for (index, event) in events.enumerated() {
            let when = event.isAllDay ? "\(day.string(from: event.startDate)) all day   "
                : "\(day.string(from: event.startDate)) \(time.string(from: event.startDate))–\(time.string(from: event.endDate))"
            print(String(format: "%3d  ", index + 1) + "\(when)  \(event.title ?? "")  [\(event.calendar?.title ?? "")]")
        }
    }
}

// MARK: Arguments

var arguments = Array(CommandLine.arguments.dropFirst())
var listOnly = false
var toDelete: [Int]?
var toShow: Int?
var start = Date()
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--list": listOnly = true
    case "--delete":
        let numbers = arguments.first.map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
        guard !numbers.isEmpty else { print("MonthlyEvents: --delete needs event numbers, such as 2,5"); exit(64) }
        arguments.removeFirst()
        toDelete = numbers
    case "--show":
        guard let number = arguments.first.flatMap({ Int($0) }) else { print("MonthlyEvents: --show needs an event number, such as 3"); exit(64) }
        arguments.removeFirst()
        toShow = number
    case "--from":
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let text = arguments.first, let date = formatter.date(from: text) else {
            print("MonthlyEvents: --from needs a day such as 2026-12-01"); exit(64)
        }
        arguments.removeFirst()
        start = date
    case "-h", "--help":
        print("usage: MonthlyEvents [--list | --delete N,N... | --show N] [--from YYYY-MM-DD]")
        exit(0)
    default:
        print("MonthlyEvents: unknown argument '\(argument)' (see --help)")
        exit(64)
    }
}

// MARK: The app

let manager = EventStoreManager(from: start)
// The loop starts observing when its task first runs: at the first suspension below.
Task { @MainActor in await manager.listenForCalendarChanges() }
guard await manager.setupEventStore() else {
    let status = EKEventStore.authorizationStatus(for: .event)
    print("MonthlyEvents needs full access to your calendar to list this month's events; it has \(status).")
    switch status {
    case .restricted:
        print("A policy restricts it: ical privacy unrestrict \(bundleIdentifier)")
    case .notDetermined:
        print("Run it on a terminal to be asked, or allow it in settings: ical privacy grant \(bundleIdentifier) --events full")
    default:
        print("Allow it in settings: ical privacy grant \(bundleIdentifier) --events full")
    }
    exit(1)
}
manager.loadEvents()
if listOnly { exit(0) }

/// Deletes the listed events with these numbers.
@MainActor func delete(_ numbers: [Int]) async -> Bool {
    let invalid = numbers.filter { !manager.events.indices.contains($0 - 1) }
    guard invalid.isEmpty else {
        print("There is no event \(invalid.map(String.init).joined(separator: ", ")); the list has \(manager.events.count).")
        return false
    }
    let selected = numbers.map { manager.events[$0 - 1] }
    do {
        try manager.removeEvents(selected)
    } catch {
        print("Nothing was deleted: \(error)")
        return false
    }
    print("Deleted \(selected.count) event\(selected.count == 1 ? "" : "s").")
    // The change notification is taken by the listening task on the main actor: let it run.
    try? await Task.sleep(for: .milliseconds(300))
    return true
}

/// One line from standard input, read off the main actor (so change notifications still arrive).
func readLineAsync() async -> String? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: readLine()) }
    }
}

if let toDelete {
    exit(await delete(toDelete) ? 0 : 1)
}

/// Tells the app how the user left the system's event viewer.
final class ViewerDelegate: NSObject, EKEventViewDelegate {
    func eventViewController(_ controller: EKEventViewController, didCompleteWith action: EKEventViewAction) {
        switch action {
        case .done: print("The viewer was closed.")
        case .responded: print("You answered the invitation.")
        case .deleted: print("You deleted the event.")
        @unknown default: print("The viewer was closed.")
        }
    }
}

if let toShow {
    guard manager.events.indices.contains(toShow - 1) else {
        print("There is no event \(toShow); the list has \(manager.events.count).")
        exit(1)
    }
    // Full access: the app has the event, so the system's viewer may show it.
    let delegate = ViewerDelegate()
    let viewer = EKEventViewController()
    viewer.event = manager.events[toShow - 1]
    viewer.allowsEditing = true
    viewer.delegate = delegate
    viewer.present()            // Linux: instead of pushing it on a navigation controller
    // The store posts EKEventStoreChanged after a change: let the listening task run.
    try? await Task.sleep(for: .milliseconds(300))
    exit(0)
}
let question = "Delete which events? (numbers such as 2 5; Enter quits) "
while true {
    print(question, terminator: "")
    fflush(nil)
    manager.pendingQuestion = question
    let answer = await readLineAsync()
    manager.pendingQuestion = nil
    guard let line = answer?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { break }
    let numbers = line.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Int($0) }
    if numbers.isEmpty {
        print("Type the events' numbers.")
        continue
    }
    _ = await delete(numbers)
}
