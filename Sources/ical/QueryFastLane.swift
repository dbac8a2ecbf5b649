import ArgumentParser
import Foundation
import ICalKit

/// The plain spellings of `ical query`'s arguments, read without ArgumentParser's setup.
///
/// ArgumentParser builds its argument sets by reflecting over every option of the command
/// and of its completion-script pseudo-commands; on Linux each type it meets that way is
/// looked up by name and checked against its protocols by scanning every loaded image's
/// conformance records. For `ical query` that setup took 5–6 ms of a warm store query's
/// 25–30 (`perf record`): more than reading and writing a small store's month. A query is
/// the command run most often and from scripts, so its common spellings are read here
/// directly into the same ``ICal/Query`` value, validated by the same `validate()` and run
/// by the same `run()`.
///
/// Only the plainest spellings are taken: each option given once (except the repeatable
/// ones), its value the next argument and not starting with `-`, inputs not starting with
/// `-`. Anything else (`--at=…`, `--help`, `-h`, `--`, standard input as `-`, an unknown
/// option, a bad value, a repeated option, a validation error) returns nil, and the
/// arguments go to ArgumentParser, which parses them or reports the error with the usual
/// message and exit status. `ICAL_FAST_LANE=0` in the environment sends every query to
/// ArgumentParser (`QueryFastLaneTests` compares both readings).
enum QueryFastLane {
    /// The query the arguments after `query` spell, or nil to leave them to ArgumentParser.
    static func query(_ arguments: ArraySlice<String>) -> ICal.Query? {
        var at: String?
        var between: [String]?
        var components: [ICal.Query.Kind] = []
        var limit: Int?
        var format: ICal.Query.Format?
        var includeCancelled = false
        var inputs: [String] = []
        var tz: String?
        var calendars: [String] = []
        var rescan = false
        var strict = false
        var store: String?
        var app: String?
        var output: String?
        var memory: MemoryBudget?

        var rest = arguments[...]
        /// The value of a single-valued option given once: the next argument, not an option.
        func value(once current: String?) -> String? {
            guard current == nil, let next = rest.first, !next.hasPrefix("-") else { return nil }
            rest.removeFirst()
            return next
        }
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                inputs.append(argument)
                continue
            }
            switch argument {
            case "--at":
                guard let next = value(once: at) else { return nil }
                at = next
            case "--between":
                // ArgumentParser's upToNextOption: every value up to the next option.
                guard between == nil else { return nil }
                var values: [String] = []
                while let next = rest.first, !next.hasPrefix("-") {
                    values.append(next)
                    rest.removeFirst()
                }
                guard !values.isEmpty else { return nil }
                between = values
            case "--component":
                guard let next = value(once: nil), let kind = ICal.Query.Kind(argument: next) else { return nil }
                components.append(kind)
            case "--limit":
                guard let next = value(once: limit.map(String.init)), let number = Int(next) else { return nil }
                limit = number
            case "--format":
                guard let next = value(once: format?.rawValue), let chosen = ICal.Query.Format(argument: next) else { return nil }
                format = chosen
            case "--tz":
                guard let next = value(once: tz) else { return nil }
                tz = next
            case "--calendar":
                guard let next = value(once: nil) else { return nil }
                calendars.append(next)
            case "--store":
                guard let next = value(once: store) else { return nil }
                store = next
            case "--app":
                guard let next = value(once: app) else { return nil }
                app = next
            case "-o", "--output":
                guard let next = value(once: output) else { return nil }
                output = next
            case "--memory":
                guard let next = value(once: memory?.description), let budget = MemoryBudget(argument: next) else { return nil }
                memory = budget
            case "--include-cancelled":
                guard !includeCancelled else { return nil }
                includeCancelled = true
            case "--rescan":
                guard !rescan else { return nil }
                rescan = true
            case "--strict":
                guard !strict else { return nil }
                strict = true
            default:
                return nil
            }
        }

        // Every stored property is set, from the outside in: a property wrapper that is
        // read without a value stops the process, so a new option must be added here too
        // (QueryFastLaneTests runs every option through both readings).
        var reading = ReadingOptions()
        reading.strict = strict
        reading.memory = memory ?? .default
        var storeOptions = StoreAppOptions()
        storeOptions.store = store
        storeOptions.app = app
        var source = OccurrenceInputs()
        source.inputs = inputs
        source.tz = tz
        source.calendar = calendars
        source.rescan = rescan
        source.reading = reading
        source.storeOptions = storeOptions
        var outputOptions = OutputOptions()
        outputOptions.output = output ?? "-"
        var window = WindowOptions()
        window.at = at
        window.between = between ?? []
        var query = ICal.Query()
        query.window = window
        query.component = components
        query.limit = limit
        query.format = format ?? .text
        query.includeCancelled = includeCancelled
        query.source = source
        query.output = outputOptions
        do {
            try query.validate()
        } catch {
            return nil
        }
        return query
    }
}

extension ICal {
    /// Runs `ical`: a plainly spelled `ical query` through ``QueryFastLane``, everything
    /// else through ArgumentParser. Errors end the process as ArgumentParser's `main` ends
    /// it (message, exit status).
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "query", getenv("ICAL_FAST_LANE").map({ String(cString: $0) }) != "0",
           let query = QueryFastLane.query(arguments.dropFirst()) {
            do {
                try query.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        main(nil)
    }
}
