import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

/// The one rule for every path `ical` reads or writes: a path that is a store, lies inside
/// one, or leads into one through a walk is the store, under the app's access level.
///
/// Every command takes its input paths from ``expand(_:)`` or ``checkRead(_:purpose:)`` and
/// writes through ``writeCalendars(_:to:file:)`` or ``checkTextOutput(_:)``; none opens a
/// user's path any other way. Paths are compared with the stores by ``StoreBoundary``
/// (device and inode, through links, `..` and relative paths):
///
/// - Reading a store path needs full access to what it holds: events for the store's folder
///   and event calendars, reminders for reminder lists. Without it the command stops before
///   reading a byte (so no diagnostic can quote an item), with the message and exit status
///   (77) of `ical query` on the store; when the user has not decided, the system prompt
///   asks first, as it does for the store itself.
/// - A folder walk that meets a store (or a calendar of one) it may not read skips it with
///   one warning and goes on.
/// - Calendar data written to a path in a store is imported instead, as `ical import`
///   does: one batch (atomic, indexed, notified), under the access the write needs
///   (write-only for events into the default calendar, full to choose another). Anything
///   else (JSON, CSV, text, the store's metadata) is refused, pointing at `ical import`.
/// - Standard input (`-`) is a plain stream: `cat FILE | ical query -` cannot be told apart
///   from any other text and is not checked.
final class PathGate {
    /// Where the stores are.
    let boundary: StoreBoundary
    /// The app the command acts as.
    let manifest: AppManifest
    /// The configured store as the user named it (nil: the environment's default), and its
    /// resolved folder, so the advice repeats `--store` only when it is needed.
    private let storeArgument: String?
    private let defaultStoreRoot: String?
    /// Stores opened so far, by their folder.
    private var stores: [String: EKEventStore] = [:]
    /// What the walk already decided, by store folder and part.
    private var walkDecisions: [String: Bool] = [:]

    /// The gate for a command acting as `manifest` (default: `ical` itself), with
    /// `store` as its `--store` when it has one.
    init(store: String? = nil, manifest: AppManifest = StoreAppOptions.toolManifest) {
        let environment = StoreAppOptions.locationEnvironment()
        let configured = [store, try? FolderStore.defaultLocation(environment: environment)].compactMap { $0 }.filter { !$0.isEmpty }
        let boundary = StoreBoundary(configuredStores: configured)
        self.boundary = boundary
        self.manifest = manifest
        storeArgument = store
        defaultStoreRoot = configured.first.flatMap { boundary.location(of: $0)?.storeRoot }
    }

    /// The gate of a store command: its `--store` and `--app`.
    convenience init(_ options: StoreAppOptions) throws {
        self.init(store: options.store, manifest: try options.manifest())
    }

    // MARK: Reading

    /// The files an input names (see `CalendarFiles.expand`), after the input itself is
    /// checked: a store path the app may not read stops the command (exit 77); stores met
    /// in a folder walk that it may not read are skipped with a warning.
    ///
    /// - Throws: `ExitCode` for a refusal (already explained on standard error), or the
    ///   `ICalError` of an input that cannot be listed.
    func expand(_ input: String) throws -> [String] {
        if input == "-" { return ["-"] }
        if let location = boundary.location(of: input) { try requireRead(location, path: input) }
        return try CalendarFiles.expand(input) { path, _ in self.admit(path) }
    }

    /// ``expand(_:)``, with an input that cannot be listed reported on standard error and
    /// the command stopped with exit status 1.
    func expand(inputOf input: String) throws -> [String] {
        do { return try expand(input) } catch let exit as ExitCode { throw exit } catch {
            printError("\(error)")
            throw ExitCode(1)
        }
    }

    /// Checks one file a command reads that is not a calendar input (a specification, a
    /// list of holidays, a manifest): it may not come from a store the app may not read.
    func checkRead(_ path: String, purpose: String) throws {
        if path == "-" { return }
        if let location = boundary.location(of: path) { try requireRead(location, path: path, purpose: purpose) }
    }

    /// ``checkRead(_:purpose:)`` for a file a library reads on the command's behalf (a
    /// specification's holiday calendars): the refusal is explained on standard error, then
    /// thrown as `ICalError` with the code `notPermitted`, for the command to exit with 77.
    func fileCheck(purpose: String) -> (String) throws(ICalError) -> Void {
        { path throws(ICalError) in
            do { try self.checkRead(path, purpose: purpose) } catch {
                throw ICalError(.notPermitted, "ical may not read it (see above)", file: path)
            }
        }
    }

    /// Stops the command unless the app may read what `location` holds.
    private func requireRead(_ location: StoreBoundary.Location, path: String, purpose: String = "reading") throws {
        let action = "\(purpose) \(path) (\(location))"
        if location.part == .metadata {
            printError("""
                ical: \(path) is the metadata of the store at \(location.storeRoot), which ical never reads or writes as a file.
                  Access decisions are shown by: ical privacy status\(storeFlag(location)); the store's items by: ical export\(storeFlag(location))
                """)
            throw ExitCode(exitNoPermission)
        }
        let store = try open(location)
        let access = AppAccess(manifest: manifest, storeArgument: storeArgument(location))
        for entityType in entityTypes(read: location, in: store) {
            try access.require(.full, to: entityType, on: store, for: action)
        }
    }

    /// Whether a folder walk may take `path`: anything outside a store; inside one, what the
    /// app may read without being asked. A refusal is reported once per store and calendar.
    private func admit(_ path: String) -> Bool {
        guard let location = boundary.location(of: path) else { return true }
        let key = location.storeRoot + "\u{0}" + (location.relativePath.split(separator: "/").first.map(String.init) ?? "")
        if let known = walkDecisions[key] { return known }
        var allowed = false
        if location.part != .metadata, let store = try? open(location, quietly: true) {
            let missing = entityTypes(read: location, in: store).first { store.authority.accessLevel(for: $0) != .full }
            if let missing {
                let status = store.authority.authorizationStatus(for: missing)
                let access = AppAccess(manifest: manifest, storeArgument: storeArgument(location))
                printError("""
                    ical: warning: skipping \(path): it is \(location), and reading it needs full access to \(missing == .event ? "events" : "reminders"); \(manifest.bundleIdentifier) has \(status).
                      Grant it with: ical privacy grant \(manifest.bundleIdentifier) \(access.grantFlag(.full, missing))\(access.storeFlag)
                    """)
            } else {
                allowed = true
            }
        } else {
            printError("ical: warning: skipping \(path): it is \(location), which ical does not read as files")
        }
        walkDecisions[key] = allowed
        return allowed
    }

    /// The kinds of item reading `location` reads: events for the store's folder (a walk
    /// then asks again for each calendar), the calendar's own kinds for a calendar.
    private func entityTypes(read location: StoreBoundary.Location, in store: EKEventStore) -> [EKEntityType] {
        switch location.part {
        case .root, .metadata: [.event]
        case .collection(let identifier): store.collectionEntityTypes(identifier) ?? [.event]
        }
    }

    // MARK: Writing

    /// Where output to `path` goes.
    enum Destination {
        /// Standard output (`-`).
        case standardOutput
        /// A file outside every store.
        case file(String)
        /// A path in a store.
        case store(StoreBoundary.Location)
    }

    /// Where output to `path` goes.
    func destination(_ path: String) -> Destination {
        if path == "-" { return .standardOutput }
        if let location = boundary.location(of: path) { return .store(location) }
        return .file(path)
    }

    /// Writes calendar data: to standard output or a file with `file`, or, when `path` is
    /// in a store, into the store as one import batch under the app's access.
    func writeCalendars(_ calendars: [Component], to path: String, file: () throws -> Void) throws {
        guard case .store(let location) = destination(path) else { return try file() }
        guard location.part != .metadata else { throw refuseWrite(path, location, reason: "ical never writes the store's metadata as files") }
        let store = try open(location)
        var target: EKCalendar?
        var calendarIsChosen = false
        if case .collection(let identifier) = location.part {
            guard location.relativePath.split(separator: "/").count <= 2 else {
                throw refuseWrite(path, location, reason: "it is not a calendar's folder or an item in one")
            }
            guard let types = store.collectionEntityTypes(identifier) else {
                throw refuseWrite(path, location, reason: "the store has no calendar '\(identifier)' (create it with: ical calendars create)")
            }
            // The default calendar for events takes write-only access too; any other
            // calendar is chosen, which needs full access (as `ical import --calendar`).
            calendarIsChosen = !(types == [.event] && identifier == store.defaultEventCollectionIdentifier)
            if calendarIsChosen {
                let access = AppAccess(manifest: manifest, storeArgument: storeArgument(location))
                for entityType in types { try access.require(.full, to: entityType, on: store, for: "writing into \(path) (\(location))") }
                target = store.calendar(withIdentifier: identifier)
            }
        }
        let report = try StoreImport(access: AppAccess(manifest: manifest, storeArgument: storeArgument(location)))
            .run(calendars, into: target, on: store, action: "writing into \(path) (\(location))")
        printError("ical: \(path) is in the store at \(location.storeRoot): its items were imported as one batch, not written as a file. \(report)")
    }

    /// Refuses output that is not calendar data (JSON, CSV, text) to a path in a store.
    func checkTextOutput(_ path: String) throws {
        guard case .store(let location) = destination(path) else { return }
        throw refuseWrite(path, location, reason: "only calendar data (iCalendar or jCal) goes into a store, and only as an import")
    }

    private func refuseWrite(_ path: String, _ location: StoreBoundary.Location, reason: String) -> ExitCode {
        printError("""
            ical: not writing \(path): it is in \(location), and \(reason).
              Files go into a store only through it: ical import FILE\(storeFlag(location)) (or write the file outside the store).
            """)
        return ExitCode(exitNoPermission)
    }

    // MARK: Stores

    /// The store a location lies in, opened as the app (once per store).
    private func open(_ location: StoreBoundary.Location, quietly: Bool = false) throws -> EKEventStore {
        if let store = stores[location.storeRoot] { return store }
        do {
            let store = try EKEventStore(storeURL: URL(fileURLWithPath: location.storeRoot), manifest: manifest, watchingChanges: false)
            stores[location.storeRoot] = store
            return store
        } catch {
            if !quietly { printError("ical: \(location.storeRoot) is a store and cannot be opened: \(error)") }
            throw ExitCode(1)
        }
    }

    /// The `--store` to repeat in advice about `location`'s store.
    private func storeArgument(_ location: StoreBoundary.Location) -> String? {
        location.storeRoot == defaultStoreRoot ? storeArgument : location.storeRoot
    }

    private func storeFlag(_ location: StoreBoundary.Location) -> String {
        storeArgument(location).map { " --store \(shellQuoted($0))" } ?? ""
    }
}

/// An import into a store under the app's access: the checks `ical import` makes, then one
/// batch. Shared by `ical import` and by writes that the path gate turns into imports.
struct StoreImport {
    /// The app's access to the store.
    let access: AppAccess

    /// Imports `calendars` into `target` (nil: the default calendars), after making sure the
    /// app may: write-only access to events (full to choose a calendar), full access to
    /// reminders for to-dos.
    func run(_ calendars: [Component], into target: EKCalendar?, on store: EKEventStore, action: String,
             remindersAction: String? = nil) throws -> Report {
        let hasTodos = calendars.contains { $0.components.contains { $0.matches(.todo) } }
        let hasEvents = calendars.contains { $0.components.contains { !$0.matches(.todo) && !$0.matches(.timeZone) } }
        if hasEvents || !hasTodos {
            try access.require(target == nil ? .writeOnly : .full, to: .event, on: store, for: action)
        }
        if hasTodos { try access.require(.full, to: .reminder, on: store, for: remindersAction ?? action) }
        var progress = ProgressLine("ical: importing")
        do {
            return Report(try store.importCalendars(calendars, into: target) { progress.update($0, $1) })
        } catch {
            printError("ical: import failed, nothing was written: \(error)")
            throw ExitCode((error as? EKError)?.code == .eventStoreNotAuthorized ? exitNoPermission : 1)
        }
    }

    /// ``run(_:into:on:action:remindersAction:)`` of calendar data kept as bookkeeping
    /// (`ical import`'s streamed files): the same checks, one batch written item by item.
    func run(_ source: EKImportSource, into target: EKCalendar?, on store: EKEventStore, action: String,
             remindersAction: String? = nil) throws -> Report {
        if source.containsOtherThanTodos || !source.containsTodos {
            try access.require(target == nil ? .writeOnly : .full, to: .event, on: store, for: action)
        }
        if source.containsTodos { try access.require(.full, to: .reminder, on: store, for: remindersAction ?? action) }
        var progress = ProgressLine("ical: importing")
        do {
            return Report(try store.importCalendars(from: source, into: target) { progress.update($0, $1) })
        } catch {
            printError("ical: import failed, nothing was written: \(error)")
            throw ExitCode((error as? EKError)?.code == .eventStoreNotAuthorized ? exitNoPermission : 1)
        }
    }

    /// What an import did, as one sentence.
    struct Report: CustomStringConvertible {
        let report: EKImportReport

        init(_ report: EKImportReport) { self.report = report }

        var description: String {
            var text = "Imported \(report.added) new item\(report.added == 1 ? "" : "s")"
            if report.updated > 0 { text += " and replaced \(report.updated)" }
            text += " into \(report.calendars.sorted().map { TerminalText.line($0) }.joined(separator: ", "))"
            if report.uidsAdded > 0 { text += " (\(report.uidsAdded) component\(report.uidsAdded == 1 ? "" : "s") without UID got one)" }
            return text + "."
        }
    }
}
