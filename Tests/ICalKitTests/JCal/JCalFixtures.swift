/// Hand-written calendars in the shapes real producers write, all canonical: uppercase
/// names, minimally quoted parameters, canonical TEXT escaping, VALUE only where it differs
/// from the default and then first. Lines end with LF; ICalReader accepts that.
enum JCalFixtures {
    static let google = """
        BEGIN:VCALENDAR
        PRODID:-//Google Inc//Google Calendar 70.9054//EN
        VERSION:2.0
        CALSCALE:GREGORIAN
        METHOD:PUBLISH
        X-WR-CALNAME:Piano lessons
        X-WR-TIMEZONE:Europe/Berlin
        BEGIN:VTIMEZONE
        TZID:Europe/Berlin
        X-LIC-LOCATION:Europe/Berlin
        BEGIN:DAYLIGHT
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        TZNAME:CEST
        DTSTART:19700329T020000
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
        END:DAYLIGHT
        BEGIN:STANDARD
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        TZNAME:CET
        DTSTART:19701025T030000
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VEVENT
        DTSTART;TZID=Europe/Berlin:20240108T160000
        DTEND;TZID=Europe/Berlin:20240108T164500
        RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20240624T215959Z;BYDAY=MO,WE
        EXDATE;TZID=Europe/Berlin:20240115T160000,20240117T160000
        DTSTAMP:20240105T093012Z
        ORGANIZER;CN=Anna Teacher:mailto:anna@example.com
        UID:7kukuqrfedlm2f9t0vr0hgk8ft@google.com
        ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;RSVP=TRUE
         ;CN=Ben Pupil;X-NUM-GUESTS=0:mailto:ben@example.com
        CREATED:20231220T101010Z
        DESCRIPTION:Bring the Czerny book\\, and the metronome.\\nRoom 2\\; ring twice
         .
        LAST-MODIFIED:20240105T093012Z
        LOCATION:Musikschule\\, Hauptstraße 5\\, 10115 Berlin
        SEQUENCE:3
        STATUS:CONFIRMED
        SUMMARY:Piano\\; grade 3
        TRANSP:OPAQUE
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:This is an event reminder
        TRIGGER:-P0DT0H30M0S
        END:VALARM
        BEGIN:VALARM
        ACTION:EMAIL
        DESCRIPTION:This is an event reminder
        SUMMARY:Alarm notification
        ATTENDEE:mailto:ben@example.com
        TRIGGER:-P1D
        END:VALARM
        END:VEVENT
        END:VCALENDAR

        """

    static let outlook = """
        BEGIN:VCALENDAR
        METHOD:REQUEST
        PRODID:Microsoft Exchange Server 2010
        VERSION:2.0
        X-MS-OLK-FORCEINSPECTOROPEN:TRUE
        BEGIN:VTIMEZONE
        TZID:W. Europe Standard Time
        BEGIN:STANDARD
        DTSTART:16010101T030000
        TZOFFSETFROM:+0200
        TZOFFSETTO:+0100
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:16010101T020000
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
        END:DAYLIGHT
        END:VTIMEZONE
        BEGIN:VEVENT
        ORGANIZER;CN=Chris Organiser:mailto:chris@contoso.example
        ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN="Doe, Jane"
         :mailto:jane@contoso.example
        ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=FALSE;CN=Room 4.12
         ;CUTYPE=RESOURCE:mailto:room412@contoso.example
        DESCRIPTION;LANGUAGE=en-US:Quarterly review.\\n\\nAgenda:\\n1. Numbers\\n2. Pl
         ans\\n
        UID:040000008200E00074C5B7101A82E00800000000A0D4E4AD5B42DA01000000000000000
         010000000C3F6E2B4A1E3B64C9D0E8D3A3F5E1B2A
        SUMMARY;LANGUAGE=en-US:Q1 review
        DTSTART;TZID=W. Europe Standard Time:20240312T140000
        DTEND;TZID=W. Europe Standard Time:20240312T153000
        CLASS:PUBLIC
        PRIORITY:5
        DTSTAMP:20240301T081500Z
        TRANSP:OPAQUE
        STATUS:CONFIRMED
        SEQUENCE:0
        LOCATION;LANGUAGE=en-US:Room 4.12
        X-MICROSOFT-CDO-APPT-SEQUENCE:0
        X-MICROSOFT-CDO-BUSYSTATUS:TENTATIVE
        X-MICROSOFT-CDO-INTENDEDSTATUS:BUSY
        X-MICROSOFT-CDO-ALLDAYEVENT:FALSE
        X-MICROSOFT-CDO-IMPORTANCE:1
        X-MICROSOFT-CDO-INSTTYPE:0
        X-MICROSOFT-DISALLOW-COUNTER:FALSE
        X-ALT-DESC;FMTTYPE=text/html:<html><body><p>Quarterly review.</p></body></h
         tml>
        BEGIN:VALARM
        DESCRIPTION:REMINDER
        TRIGGER;RELATED=START:-PT15M
        ACTION:DISPLAY
        END:VALARM
        END:VEVENT
        BEGIN:VEVENT
        UID:outlook-all-day-1
        SUMMARY:Company holiday
        DTSTART;VALUE=DATE:20240501
        DTEND;VALUE=DATE:20240502
        DTSTAMP:20240301T081500Z
        X-MICROSOFT-CDO-ALLDAYEVENT:TRUE
        END:VEVENT
        END:VCALENDAR

        """

    static let apple = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//Apple Inc.//macOS 14.4//EN
        CALSCALE:GREGORIAN
        BEGIN:VEVENT
        CREATED:20240310T120000Z
        DTEND;TZID=America/Los_Angeles:20240315T110000
        DTSTAMP:20240310T120501Z
        DTSTART;TZID=America/Los_Angeles:20240315T100000
        LAST-MODIFIED:20240310T120500Z
        LOCATION:Apple Park\\nOne Apple Park Way\\, Cupertino CA 95014\\, United Stat
         es
        SEQUENCE:1
        SUMMARY:Design review ☕
        UID:5A3C5D0E-9F1B-4D2C-8E7A-1B2C3D4E5F60
        URL:https://example.com/review?id=42&lang=en
        X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="One Apple Park Way, Cupert
         ino CA 95014, United States";X-APPLE-MAPKIT-HANDLE=CAESvAEIrk0Q;X-APPLE-RA
         DIUS=141.1750506089954;X-APPLE-REFERENCEFRAME=1;X-TITLE=Apple Park:geo:37.
         334922,-122.009033
        X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:Reminder
        TRIGGER:-PT10M
        UID:B8C7A6E5-D4C3-4B2A-9180-7F6E5D4C3B2A
        X-WR-ALARMUID:B8C7A6E5-D4C3-4B2A-9180-7F6E5D4C3B2A
        END:VALARM
        BEGIN:VALARM
        ACKNOWLEDGED:20240310T120000Z
        ACTION:NONE
        TRIGGER;VALUE=DATE-TIME:19760401T005545Z
        X-APPLE-DEFAULT-ALARM:TRUE
        X-APPLE-LOCAL-DEFAULT-ALARM:TRUE
        END:VALARM
        END:VEVENT
        BEGIN:VTODO
        COMPLETED:20240312T083000Z
        CREATED:20240311T090000Z
        DTSTAMP:20240312T083000Z
        DUE;VALUE=DATE:20240315
        PERCENT-COMPLETE:100
        PRIORITY:1
        STATUS:COMPLETED
        SUMMARY:Send slides
        UID:todo-1@example.com
        END:VTODO
        END:VCALENDAR

        """

    static let extensions = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//OpenEventKit//Tests//EN
        NAME:Team calendar
        COLOR:turquoise
        REFRESH-INTERVAL;VALUE=DURATION:P1D
        SOURCE;VALUE=URI:https://example.com/team.ics
        IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/png:https://example.com/badge.png
        X-CUSTOM-FLAG;X-PARAM="a;b";X-OTHER=plain;X-EMPTY=:raw value \\q kept
        X-EMPTY-VALUE:
        BEGIN:VEVENT
        UID:ext-1
        DTSTAMP:20240101T000000Z
        DTSTART:20240102T090000Z
        DURATION:PT1H30M
        CONFERENCE;VALUE=URI;FEATURE=AUDIO,VIDEO;LABEL=Join:https://meet.example.com/abc
        CATEGORIES:Work,Music\\, piano,a\\;b
        CATEGORIES:Second
        RESOURCES:Projector,Whiteboard
        GEO:37.386013;-122.082932
        REQUEST-STATUS:2.0;Success
        REQUEST-STATUS:3.7;Invalid calendar user;ATTENDEE:mailto:x@example.com
        ATTENDEE;MEMBER="mailto:team@example.com","mailto:all@example.com";DELEGATE
         D-FROM="mailto:boss@example.com":mailto:dev@example.com
        ATTENDEE;CN=Quote ^' caret ^^ and ^n newline:mailto:odd@example.com
        COMMENT:Backslash \\\\ semicolon \\; comma \\, newline \\n end
        DESCRIPTION:
        RELATED-TO;RELTYPE=PARENT:parent-uid
        ATTACH;VALUE=BINARY;FMTTYPE=text/plain;ENCODING=BASE64:SGVsbG8=
        ATTACH;FMTTYPE=application/pdf:https://example.com/a.pdf
        X-BOOL;VALUE=BOOLEAN:TRUE
        X-INT;VALUE=INTEGER:-5
        X-FLOAT;VALUE=FLOAT:1.50
        X-TIME;VALUE=TIME:103000Z
        X-LOCAL-TIME;VALUE=TIME:235960
        X-OFFSET;VALUE=UTC-OFFSET:-0130
        X-TEXT;VALUE=TEXT:one\\, two
        X-PLAIN;VALUE=X-MYTYPE:whatever; goes, here
        X-DATE;VALUE=DATE:soon
        X-URI;VALUE=URI:urn:ietf:params:xml:ns:x
        X-WHEN;VALUE=DATE-TIME:20240101T120000
        RDATE;VALUE=DATE:20240110,20240111
        EXDATE:20240109T090000Z,20240116T090000Z
        END:VEVENT
        BEGIN:X-VENDOR-THING
        X-KEY:value
        SUMMARY:Inside an X- component
        BEGIN:X-NESTED
        X-DEEP;X-P=1:deep
        END:X-NESTED
        END:X-VENDOR-THING
        END:VCALENDAR

        """

    static let recurrence = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//OpenEventKit//Tests//EN
        BEGIN:VTIMEZONE
        TZID:Europe/Amsterdam
        BEGIN:STANDARD
        DTSTART:18350101T000000
        TZOFFSETFROM:+001932
        TZOFFSETTO:+001932
        TZNAME:AMT
        END:STANDARD
        BEGIN:STANDARD
        DTSTART:19370701T000000
        TZOFFSETFROM:+001932
        TZOFFSETTO:+0020
        TZNAME:+0020
        RDATE:19370701T000000
        END:STANDARD
        BEGIN:DAYLIGHT
        DTSTART:19800406T020000
        TZOFFSETFROM:+0100
        TZOFFSETTO:+0200
        TZNAME:CEST
        RRULE:FREQ=YEARLY;UNTIL=19800406T010000Z;BYMONTH=4;BYDAY=1SU
        END:DAYLIGHT
        BEGIN:STANDARD
        DTSTART:19961027T030000
        TZOFFSETFROM:-000030
        TZOFFSETTO:+0000
        END:STANDARD
        END:VTIMEZONE
        BEGIN:VEVENT
        UID:rrule-all-parts
        DTSTAMP:20240101T000000Z
        DTSTART:20240101T090000Z
        RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYSECOND=0,30;BYMINUTE=15;BYHOUR=9,17
         ;BYDAY=1MO,-1FR,+2TU,SA;BYMONTHDAY=1,-1;BYYEARDAY=100,-100;BYMONTH=1,6;BY
         SETPOS=-1,1;WKST=SU
        RRULE:FREQ=YEARLY;BYWEEKNO=20,-1;BYDAY=MO,TH
        RRULE:FREQ=MONTHLY;UNTIL=20241231
        RRULE:FREQ=DAILY;BYMONTHDAY=01;BYHOUR=09
        RRULE:RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=5L;SKIP=FORWARD
        RRULE:FREQ=WEEKLY;X-NAME=value=with-equals
        EXRULE:FREQ=WEEKLY;COUNT=4;BYDAY=TU
        RDATE;VALUE=PERIOD:19960403T020000Z/19960403T040000Z,19960404T010000Z/PT3H
        RDATE;VALUE=PERIOD;TZID=Europe/Amsterdam:20240301T100000/-PT1H
        EXDATE;VALUE=DATE:20240102,20240103
        RECURRENCE-ID;RANGE=THISANDFUTURE:20240108T090000Z
        END:VEVENT
        BEGIN:VFREEBUSY
        UID:fb-1
        DTSTAMP:20240101T000000Z
        DTSTART:20240101T000000Z
        DTEND:20240102T000000Z
        FREEBUSY;FBTYPE=BUSY-UNAVAILABLE:20240101T080000Z/PT8H30M
        FREEBUSY:20240101T100000Z/20240101T110000Z,20240101T140000Z/P1DT2H3M4S
        END:VFREEBUSY
        BEGIN:VJOURNAL
        UID:journal-1
        DTSTAMP:20240101T000000Z
        DTSTART;VALUE=DATE:20240101
        SUMMARY:Journal with nothing else
        END:VJOURNAL
        BEGIN:VTODO
        UID:todo-alarm
        DTSTAMP:20240101T000000Z
        DUE:20240105T170000Z
        BEGIN:VALARM
        ACTION:AUDIO
        TRIGGER;RELATED=END:-P2W
        REPEAT:4
        DURATION:PT5M
        ATTACH;FMTTYPE=audio/basic:ftp://example.com/pub/sounds/bell-01.aud
        END:VALARM
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:Now
        TRIGGER:PT0S
        END:VALARM
        BEGIN:VALARM
        ACTION:DISPLAY
        DESCRIPTION:Plus sign kept
        TRIGGER:+PT5M
        END:VALARM
        END:VTODO
        END:VCALENDAR

        """

    static let availability = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//OpenEventKit//Tests//EN
        BEGIN:VAVAILABILITY
        UID:avail-1
        DTSTAMP:20240101T000000Z
        BUSYTYPE:BUSY-UNAVAILABLE
        BEGIN:AVAILABLE
        UID:avail-1-a
        DTSTART;TZID=America/Montreal:20240101T090000
        DTEND;TZID=America/Montreal:20240101T170000
        RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR
        LOCATION-TYPE:office,remote
        END:AVAILABLE
        END:VAVAILABILITY
        BEGIN:VEVENT
        UID:participants
        DTSTAMP:20240101T000000Z
        DTSTART:20240101T090000Z
        STYLED-DESCRIPTION;VALUE=TEXT;FMTTYPE=text/html:<p>Hi</p>
        BEGIN:PARTICIPANT
        UID:p-1
        PARTICIPANT-TYPE:SPEAKER
        CALENDAR-ADDRESS:mailto:speaker@example.com
        END:PARTICIPANT
        BEGIN:VLOCATION
        UID:l-1
        NAME:Main hall
        LOCATION-TYPE:auditorium
        END:VLOCATION
        BEGIN:VRESOURCE
        UID:r-1
        RESOURCE-TYPE:PROJECTOR
        END:VRESOURCE
        END:VEVENT
        END:VCALENDAR

        """

    static let all: [(name: String, text: String)] = [
        ("google", google), ("outlook", outlook), ("apple", apple), ("extensions", extensions),
        ("recurrence", recurrence), ("availability", availability),
    ]
}
