import ArgumentParser

/// The `ical` command: iCalendar files on the terminal.
@main
struct ICal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ical",
        abstract: "Read, check, convert and query iCalendar (.ics) files, and keep them in an EventKit-style store.",
        discussion: """
            Inputs are .ics files, folders of .ics files (vdir collections), or - for
            standard input. Problems are reported as FILE:LINE: SEVERITY: MESSAGE on
            standard error; the exit status is non-zero when something could not be done.

            Examples:
              ical validate calendar.ics
              ical validate --strict ~/calendars/work/
              ical validate --format json export.ics
              ical convert export.ics -o clean.ics
              ical convert outlook.ics --repair -o fixed.ics
              ical convert calendar.ics --to csv -o calendar.csv
              ical import term.ics                         (into the store, as ical)
              ical query --at 2026-12                      (the store)
              ical view month 2026-12 term.ics             (a month as a grid)
              ical privacy grant org.openeventkit.ical --events full
              ical ui edit-event --app-id org.example.lessons   (the system's event editor)
              ical --generate-completion-script bash > /etc/bash_completion.d/ical
            """,
        version: icalVersion,
        subcommands: [Query.self, View.self, Convert.self, Validate.self, Lessons.self,
                      Import.self, Export.self, Calendars.self, Events.self, Sources.self, Sync.self, Privacy.self, UI.self,
                      Extensions.self, Suggestions.self, Alarms.self, Run.self, Broker.self])
}
