import ArgumentParser
import Foundation
import ICalKit
import OpenEventKit

extension ICal {
    /// `ical sources`: the CalDAV accounts and subscribed feeds the store mirrors.
    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "Add, list and remove CalDAV accounts and subscribed calendar feeds.",
            discussion: """
                Each remote calendar is mirrored in the store as a calendar folder, so every
                command (and khal) works on it offline; `ical sync` brings both sides up to
                date. What was last synced (sync tokens, each item's href and ETag) is kept in
                the store's .openeventkit/ folder, never in the items; passwords are never
                written anywhere: they come from --password-command, run at each sync, or are
                asked on the terminal.

                `http://` is refused for servers other than this machine (the password and
                the calendars would travel unencrypted) unless --allow-insecure-http.
                `webcal://` feeds are fetched over https.

                These commands act as ical with full access to events.

                Examples:
                  ical sources add caldav https://dav.example.com/ --name Work --user ada --password-command 'pass show dav'
                  ical sources add subscription webcal://school.example/holidays.ics --name Holidays --refresh 1d
                  ical sources list
                  ical sync
                  ical sources remove Holidays --yes
                """,
            subcommands: [Add.self, List.self, Remove.self],
            defaultSubcommand: List.self)
    }

    /// `ical sync`: both ways, every source or the named ones.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Sync the store's CalDAV calendars both ways and refresh its subscribed feeds.",
            discussion: """
                For each CalDAV calendar: what changed on the server comes down (RFC 6578
                sync-collection when the server offers it, else a listing of ETags, then
                calendar-multiget), and every local creation, change and removal since the
                last sync goes up (from any program: ical, khal, an editor), with
                If-None-Match: * for new items and If-Match for changes and removals, so
                nothing on the server is overwritten unseen. An item changed on both sides
                is a conflict, settled by --conflicts: keep-both (the default: the server's
                version wins the item, the local one is kept as a new item marked
                X-OPENEVENTKIT-CONFLICT and uploaded at the next sync), server, or local.

                Feeds are fetched again when their interval has passed (--refresh of
                `sources add`, else the feed's REFRESH-INTERVAL, else 1 hour), or always with
                --force; an unchanged feed costs one conditional request; a feed that fails
                or is not iCalendar keeps its last good copy.

                Time limits: a server may think for --response-timeout (default 10m) before
                it begins to answer a request (long, because some servers take minutes over
                a large calendar after a start); once a transfer moves, it must keep up at
                least 1 KiB/s averaged over --stall-timeout (default 1m), so a server that
                sends its headers and then nothing, or trickles a byte now and then, is
                stopped; each request also has a deadline scaled to the 64 MiB it may carry;
                and the whole sync ends after --timeout (default 30m), wherever it is. A request stopped by a limit fails like any
                other: nothing local is lost or half-written, each calendar keeps its last
                good sync token, and the next sync picks up from there.

                Prints one line per calendar (Work/Personal: 12 down, 3 up, 1 conflict) and
                each conflict and problem; exits with 1 when something could not be synced
                (a limit that ran out included).

                Examples:
                  ical sync
                  ical sync Work --conflicts server
                  ical sync Holidays --force
                  ical sync --timeout 5m
                """)

        @Argument(help: ArgumentHelp("The sources to sync (default: all).", valueName: "name"))
        var names: [String] = []

        @Option(help: "What to do with an item changed on both sides.")
        var conflicts: ConflictChoice = .keepBoth

        @Flag(help: "Fetch subscribed feeds even when their refresh interval has not passed.")
        var force = false

        @OptionGroup var timeOptions: NetworkTimeOptions

        @OptionGroup var storeOptions: StoreAppOptions

        enum ConflictChoice: String, ExpressibleByArgument, CaseIterable {
            case keepBoth = "keep-both", server, local
        }

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "syncing")
            guard let backend = store.folderStore else { throw ExitCode(1) }
            let manager = RemoteSourceManager(store: backend)
            let reports: [RemoteSourceManager.SourceReport]
            let limits = timeOptions.limits()
            do {
                let onTerminal = isatty(2) == 1
                reports = try manager.sync(names, policy: SyncConflictPolicy(rawValue: conflicts.rawValue)!, force: force,
                                           limits: limits,
                                           progress: { source, calendar in
                                               if onTerminal { FileHandle.standardError.write(Data("\rical sync: \(TerminalText.line(source))/\(TerminalText.line(calendar))…\u{1B}[K".utf8)) }
                                           }, password: { try SourcePassword.obtain($0, deadline: limits.deadline) })
                if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            } catch {
                printError("ical sync: \(error)")
                throw ExitCode(1)
            }
            if reports.isEmpty { print("No sources: add one with `ical sources add caldav URL --name NAME --user USER`.") }
            var failed = false
            for report in reports {
                for calendar in report.calendars {
                    print(TerminalText.line("\(report.source)/\(calendar)"))
                    calendar.conflicts.forEach { print("  conflict: " + TerminalText.line($0)) }
                    calendar.notes.forEach { print("  note: " + TerminalText.line($0)) }
                    calendar.problems.forEach { printError("  \(report.source)/\(calendar.title): \($0)") }
                    if !calendar.problems.isEmpty { failed = true }
                }
                for failure in report.failures {
                    printError("ical sync: \(report.source): \(failure)")
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}

/// The time limits of the commands that talk to servers (`ical sync`, `ical sources add`).
struct NetworkTimeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The most the whole command may take: 90s, 10m, 1h or a number of seconds.", valueName: "duration"))
    var timeout = "30m"

    @Option(name: .customLong("response-timeout"),
            help: ArgumentHelp("How long a server may think before it begins to answer a request.", valueName: "duration"))
    var responseTimeout = "10m"

    @Option(name: .customLong("stall-timeout"),
            help: ArgumentHelp("A transfer moving slower than 1 KiB/s for this long is stopped.", valueName: "duration"))
    var stallTimeout = "1m"

    func validate() throws {
        for (option, text) in [("--timeout", timeout), ("--response-timeout", responseTimeout), ("--stall-timeout", stallTimeout)] {
            guard Self.seconds(text) != nil else {
                throw ValidationError("\(option) '\(text)' is not a length of time between 1 second and 1 week, such as 90s, 10m or 1h.")
            }
        }
    }

    /// The limits of every request; the deadline of the whole command starts now.
    func limits() -> HTTPFunnel.Limits {
        var limits = HTTPFunnel.Limits()
        limits.responseTimeout = Self.seconds(responseTimeout) ?? limits.responseTimeout
        limits.stallTimeout = Self.seconds(stallTimeout) ?? limits.stallTimeout
        limits.deadline = Deadline(seconds: Self.seconds(timeout) ?? 30 * 60)
        return limits
    }

    /// A length of time (a number of seconds, or 90s, 10m, 1h30m), within 1 second to 1 week.
    static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let seconds: Double
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }), trimmed.count <= 7, let value = Double(trimmed) {
            seconds = value
        } else if let duration = try? LessonText.duration(trimmed), !duration.isNegative {
            seconds = Double(duration.nominalSeconds)
        } else {
            return nil
        }
        return (1...7 * 86_400).contains(seconds) ? seconds : nil
    }
}

/// Where a source's password comes from: its command, else the terminal.
enum SourcePassword {
    /// The password of `record`; its command is ended at `deadline`.
    static func obtain(_ record: RemoteSourceRecord, deadline: Deadline?) throws -> String? {
        if let command = record.passwordCommand { return try RemoteSourceManager.runPasswordCommand(command, deadline: deadline) }
        guard record.user != nil else { return nil }
        let prompt = TerminalText.line("Password for \(record.user ?? "") at \(record.url): ")
        guard let password = (try? TerminalSession())?.askSecret(prompt) else {
            throw RemoteError(.invalidArgument, "a password is needed and there is no terminal to ask on: give the source a --password-command")
        }
        return password
    }
}

extension ICal.Sources {
    /// `ical sources add caldav|subscription`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a CalDAV account (its calendars are found and mirrored) or a subscribed feed.",
            discussion: """
                caldav: discovery as clients do it: /.well-known/caldav (RFC 6764), else the
                URL as given; the user's principal, its calendar home and the calendars there,
                with their names, colours, kinds (events, reminders) and whether the account
                may write to them. Nothing is downloaded until `ical sync`.

                subscription: an iCalendar feed (https://, webcal://), read-only.

                The time limits are those of `ical sync` (see its help): --response-timeout
                (default 10m) for each request's answer to begin, --stall-timeout (default
                1m) for a transfer that stops moving, and --timeout (default 30m) for the
                whole discovery. Nothing is added to the store when a limit runs out.

                Examples:
                  ical sources add caldav http://127.0.0.1:5232/ --name Radicale --user ada --password-command 'cat ~/.dav-password'
                  ical sources add subscription https://example.org/holidays.ics --name Holidays --refresh 12h
                """)

        enum Kind: String, ExpressibleByArgument, CaseIterable { case caldav, subscription }

        @Argument(help: "caldav or subscription.") var kind: Kind
        @Argument(help: "The server's or the feed's URL.") var url: String
        @Option(help: "The name of the source (unique in the store).") var name: String
        @Option(help: "The account's user name (caldav).") var user: String?
        @Option(name: .customLong("password-command"),
                help: ArgumentHelp("A command whose first line of output is the password, run at each sync (default: ask on the terminal).", valueName: "command"))
        var passwordCommand: String?
        @Flag(name: .customLong("allow-insecure-http"), help: "Allow plain http:// to a server other than this machine.")
        var allowInsecureHTTP = false
        @Option(help: ArgumentHelp("How often a feed is fetched again: 30m, 12h, 1d (default: the feed's REFRESH-INTERVAL, else 1h).", valueName: "interval"))
        var refresh: String?
        @OptionGroup var timeOptions: NetworkTimeOptions
        @OptionGroup var storeOptions: StoreAppOptions

        func validate() throws {
            if kind == .subscription && (user != nil || passwordCommand != nil) {
                throw ValidationError("--user and --password-command are for caldav sources.")
            }
            if kind == .caldav && refresh != nil { throw ValidationError("--refresh is for subscriptions.") }
            if name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--name must not be empty.") }
            if RemoteSourceManager.url(url) == nil {
                throw ValidationError("'\(url)' is not a URL such as https://dav.example.com/ (credentials go in --user and --password-command, not in the URL).")
            }
        }

        func run() throws {
            var seconds: Int?
            if let refresh {
                guard let duration = try? LessonText.duration(refresh), duration.nominalSeconds >= 60 else {
                    printError("ical sources add: --refresh '\(refresh)' is not an interval of a minute or more, such as 30m, 12h or 1d")
                    throw ExitCode(2)
                }
                seconds = Int(duration.nominalSeconds)
            }
            let store = try storeOptions.open(needing: .full, for: "adding a source")
            guard let backend = store.folderStore else { throw ExitCode(1) }
            let record = RemoteSourceRecord(name: name, kind: kind == .caldav ? .caldav : .subscription, url: url, user: user,
                                            passwordCommand: passwordCommand, allowInsecureHTTP: allowInsecureHTTP ? true : nil,
                                            refreshSeconds: seconds)
            let limits = timeOptions.limits()
            do {
                let password = kind == .caldav ? try SourcePassword.obtain(record, deadline: limits.deadline) : nil
                let added = try RemoteSourceManager(store: backend).add(record, password: password, limits: limits)
                print("Added \(added.name) with \(added.calendars.count) calendar\(added.calendars.count == 1 ? "" : "s"): "
                      + added.calendars.map(\.collection).joined(separator: ", ") + ". Run `ical sync` to fetch them.")
            } catch {
                printError("ical sources add: \(error)")
                throw ExitCode(1)
            }
        }
    }

    /// `ical sources list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the sources and their calendars.")
        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "listing sources")
            guard let backend = store.folderStore else { throw ExitCode(1) }
            let sources: [RemoteSourceRecord]
            do { sources = try RemoteSourceFiles(storeRoot: backend.root).sources() } catch {
                printError("ical sources: \(error)")
                throw ExitCode(1)
            }
            if sources.isEmpty { print("No sources.") }
            for source in sources {
                var line = "\(source.name)  \(source.kind == .caldav ? "caldav" : "subscription")  \(source.url)"
                if let user = source.user { line += "  user \(user)" }
                print(TerminalText.line(line))
                for calendar in source.calendars {
                    print(TerminalText.line("  \(calendar.collection)  \(calendar.href)\(calendar.writable ? "" : "  read-only")"))
                }
            }
        }
    }

    /// `ical sources remove`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a source and its mirrored calendars from the store (the server is not touched).",
            discussion: "Asks on the terminal first; --yes skips the question (needed without a terminal).")
        @Argument(help: "The source's name.") var name: String
        @Flag(help: "Do not ask.") var yes = false
        @OptionGroup var storeOptions: StoreAppOptions

        func run() throws {
            let store = try storeOptions.open(needing: .full, for: "removing a source")
            guard let backend = store.folderStore else { throw ExitCode(1) }
            if !yes {
                let question = TerminalText.line("Remove \(name) and every item mirrored from it from this store? [y/N] ")
                guard let answer = (try? TerminalSession())?.ask(question) else {
                    printError("ical sources remove: no terminal to confirm on; give --yes")
                    throw ExitCode(1)
                }
                guard ["y", "yes"].contains(answer.lowercased()) else { throw ExitCode(1) }
            }
            do { try RemoteSourceManager(store: backend).remove(name) } catch {
                printError("ical sources remove: \(error)")
                throw ExitCode(1)
            }
            print("Removed \(name).")
        }
    }
}
