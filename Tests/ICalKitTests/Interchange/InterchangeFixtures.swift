import ICalKit

/// Small calendars the Interchange tests share.
enum InterchangeFixtures {
    static func read(_ text: String, file: String = "in.ics") throws -> [Component] {
        try ICalReader().read(text.replacingCRLF, file: file).calendars
    }

    /// An Outlook-style calendar: a Windows TZID with its VTIMEZONE, an event without UID
    /// or DTSTAMP, no VERSION or PRODID.
    static let outlook = """
        BEGIN:VCALENDAR
        BEGIN:VTIMEZONE
        TZID:W. Europe Standard Time
        BEGIN:STANDARD
        DTSTART:16010101T030000
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:16010101T020000
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
        END:DAYLIGHT
        END:VTIMEZONE
        BEGIN:VEVENT
        SUMMARY:Planning
        DTSTART;TZID=W. Europe Standard Time:20240610T090000
        DTEND;TZID=W. Europe Standard Time:20240610T100000
        END:VEVENT
        END:VCALENDAR

        """

    /// A Google-style calendar: floating times meant in X-WR-TIMEZONE.
    static let google = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//Google Inc//Google Calendar 70.9054//EN
        X-WR-TIMEZONE:America/New_York
        BEGIN:VEVENT
        UID:g1@google.com
        DTSTAMP:20240101T000000Z
        DTSTART:20240115T090000
        DTEND:20240115T093000
        RRULE:FREQ=WEEKLY;UNTIL=20240311T090000
        EXDATE:20240122T090000
        SUMMARY:Stand-up
        END:VEVENT
        BEGIN:VEVENT
        UID:g2@google.com
        DTSTAMP:20240101T000000Z
        DTSTART;VALUE=DATE:20240120
        SUMMARY:Holiday
        END:VEVENT
        END:VCALENDAR

        """
}

extension String {
    /// The text with every LF turned into CRLF.
    var replacingCRLF: String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }
}
