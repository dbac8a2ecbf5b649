import Testing
@testable import ICalKit

@Suite struct SmokeTests {
    @Test func readsAndWritesMinimalCalendar() throws {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20240101T100000Z\r\nSUMMARY:Hi\\, there\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let result = try ICalReader().read(text)
        #expect(result.diagnostics.isEmpty)
        #expect(result.calendars.count == 1)
        #expect(result.calendars[0].components(.event).first?[text: .summary] == "Hi, there")
        #expect(ICalWriter().string(result.calendars) == text)
        #expect(LibicalInfo.version.hasPrefix("3."))
        #expect(LibicalInfo.builtinZoneCount > 300)
    }
}
