import Foundation
import OpenEventKit

/// An app's call of an OpenEventKitUI helper, checked and rewritten before `ical run` runs
/// it with full access on its terminal: only the three helpers, only their own options, and
/// the store and the app's identity as the broker knows them (whatever the app wrote).
///
/// A write-only app's calendar chooser answers the app with the virtual calendar: the
/// calendar the user chose becomes the session's target for write-only saves, and the app is
/// not told which it is.
struct UIHelperCall {
    /// The helper's arguments for `ical`.
    var arguments: [String]
    /// The helper's name (`edit-event`, `choose-calendar`, `view-event`).
    var helper: String

    /// Value options and flags each helper takes from an app.
    private static let options: [String: (values: Set<String>, flags: Set<String>)] = [
        "edit-event": (["--event", "--event-identifier", "--occurrence", "--calendar"], []),
        "choose-calendar": (["--selection", "--display", "--entity-type", "--selected"], ["--done-button", "--cancel-button"]),
        "view-event": (["--event-identifier", "--occurrence"], ["--allows-editing", "--no-calendar-preview"]),
    ]
    /// Options the broker sets itself and drops from the app's arguments.
    private static let bound: Set<String> = ["--store", "--app-id", "--app-name"]

    /// Checks `requested` and makes the helper's arguments for `manifest`'s app over `store`;
    /// `writeOnlyTarget` stands for the virtual calendar the app cannot name.
    init(_ requested: [String], store: String, manifest: AppManifest, writeOnlyTarget: String?) throws(StoreError) {
        guard requested.count >= 2, requested[0] == "ui", let allowed = Self.options[requested[1]] else {
            throw StoreError(.invalidBatch, "an app may run only the ui helpers edit-event, choose-calendar and view-event")
        }
        helper = requested[1]
        var result = ["ui", helper, "--store", store, "--app-id", manifest.bundleIdentifier, "--app-name", manifest.displayName]
        var index = 2
        while index < requested.count {
            let option = requested[index]
            if allowed.flags.contains(option) {
                result.append(option)
                index += 1
                continue
            }
            guard index + 1 < requested.count, allowed.values.contains(option) || Self.bound.contains(option) else {
                throw StoreError(.invalidBatch, "'\(option)' is not an option of ical ui \(helper) an app may pass")
            }
            var value = requested[index + 1]
            index += 2
            if Self.bound.contains(option) { continue }
            if option == "--event" && value != "-" {
                throw StoreError(.invalidBatch, "the editor's event comes on standard input (--event -), not from a file")
            }
            if (option == "--selected" || option == "--calendar") && value == EKEventStore.writeOnlyCalendarIdentifier {
                guard let writeOnlyTarget else { continue }
                value = writeOnlyTarget
            }
            guard !value.hasPrefix("-") || option == "--event" else {
                throw StoreError(.invalidBatch, "the value of \(option) cannot start with '-'")
            }
            result += [option, value]
        }
        if helper == "edit-event", !result.contains("--calendar"), let writeOnlyTarget {
            result += ["--calendar", writeOnlyTarget]
        }
        arguments = result
    }
}
