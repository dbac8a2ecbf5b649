/// The IANA zones generated events use, with VTIMEZONE components written the way common
/// exporters (Thunderbird, Google Calendar, Apple Calendar) write them: one STANDARD and,
/// where the zone has daylight saving time, one DAYLIGHT observance with a yearly RRULE
/// and a 1970 DTSTART, plus `X-LIC-LOCATION`.
struct BenchZone {
    let tzid: String
    let lines: [String]

    static let all: [BenchZone] = [
        BenchZone(tzid: "America/New_York", lines: [
            "BEGIN:VTIMEZONE", "TZID:America/New_York", "X-LIC-LOCATION:America/New_York",
            "BEGIN:DAYLIGHT", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "TZNAME:EDT",
            "DTSTART:19700308T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT",
            "BEGIN:STANDARD", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST",
            "DTSTART:19701101T020000", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "America/Los_Angeles", lines: [
            "BEGIN:VTIMEZONE", "TZID:America/Los_Angeles", "X-LIC-LOCATION:America/Los_Angeles",
            "BEGIN:DAYLIGHT", "TZOFFSETFROM:-0800", "TZOFFSETTO:-0700", "TZNAME:PDT",
            "DTSTART:19700308T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT",
            "BEGIN:STANDARD", "TZOFFSETFROM:-0700", "TZOFFSETTO:-0800", "TZNAME:PST",
            "DTSTART:19701101T020000", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "Europe/Berlin", lines: [
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "X-LIC-LOCATION:Europe/Berlin",
            "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
            "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
            "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
            "DTSTART:19701025T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "Europe/London", lines: [
            "BEGIN:VTIMEZONE", "TZID:Europe/London", "X-LIC-LOCATION:Europe/London",
            "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100", "TZNAME:BST",
            "DTSTART:19700329T010000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
            "BEGIN:STANDARD", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0000", "TZNAME:GMT",
            "DTSTART:19701025T020000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "Asia/Tokyo", lines: [
            "BEGIN:VTIMEZONE", "TZID:Asia/Tokyo", "X-LIC-LOCATION:Asia/Tokyo",
            "BEGIN:STANDARD", "TZOFFSETFROM:+0900", "TZOFFSETTO:+0900", "TZNAME:JST",
            "DTSTART:19700101T000000", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "Asia/Kolkata", lines: [
            "BEGIN:VTIMEZONE", "TZID:Asia/Kolkata", "X-LIC-LOCATION:Asia/Kolkata",
            "BEGIN:STANDARD", "TZOFFSETFROM:+0530", "TZOFFSETTO:+0530", "TZNAME:IST",
            "DTSTART:19700101T000000", "END:STANDARD",
            "END:VTIMEZONE",
        ]),
        BenchZone(tzid: "Australia/Sydney", lines: [
            "BEGIN:VTIMEZONE", "TZID:Australia/Sydney", "X-LIC-LOCATION:Australia/Sydney",
            "BEGIN:STANDARD", "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "TZNAME:AEST",
            "DTSTART:19700405T030000", "RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU", "END:STANDARD",
            "BEGIN:DAYLIGHT", "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "TZNAME:AEDT",
            "DTSTART:19701004T020000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU", "END:DAYLIGHT",
            "END:VTIMEZONE",
        ]),
    ]
}
