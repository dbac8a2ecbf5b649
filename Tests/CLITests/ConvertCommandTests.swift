import Foundation
import Testing

@Suite struct ConvertCommandTests {
    @Test func canonicalInputComesBackByteIdentical() throws {
        let path = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/repeating-lessons.ics").path
        let output = try ICalRunner.run(["convert", path])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        #expect(Data(output.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func writesAtomicallyToOutputFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("in.ics", "BEGIN:VCALENDAR\nVERSION:2.0\nX-FOO;X-P=a,b:x\\,y\nEND:VCALENDAR\n")
        let target = folder.url.appendingPathComponent("out.ics").path
        let output = try ICalRunner.run(["convert", input, "-o", target])
        #expect(output.status == 0, "\(output.stderr)")
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written == "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-FOO;X-P=a,b:x\\,y\r\nEND:VCALENDAR\r\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test func strictStopsWithoutWriting() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = try folder.write("in.ics", "BEGIN:VCALENDAR\nDTSTART:2024\nEND:VCALENDAR\n")
        let target = folder.url.appendingPathComponent("out.ics").path
        let output = try ICalRunner.run(["convert", "--strict", input, "-o", target])
        #expect(output.status == 1)
        #expect(output.stderr.contains("in.ics:2"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

@Suite struct ConvertJCalTests {
    @Test func icsToJCalAndBackIsLossless() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/monthly-events.ics").path
        let jcal = folder.url.appendingPathComponent("monthly.json").path
        let toJCal = try ICalRunner.run(["convert", path, "--to", "jcal", "-o", jcal])
        #expect(toJCal.status == 0, "\(toJCal.stderr)")
        let json = try String(contentsOfFile: jcal, encoding: .utf8)
        #expect(json.hasPrefix(#"["vcalendar",[["version",{},"text","2.0"]"#))
        let back = try ICalRunner.run(["convert", jcal, "--to", "ics"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(Data(back.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func malformedJCalNamesTheFileAndPath() throws {
        let output = try ICalRunner.run(["convert", "-", "--to", "ics"], stdin: #"["vcalendar",[["dtstart",{},"date","2024-13-01"]],[]]"#)
        #expect(output.status == 1)
        #expect(output.stderr.hasPrefix("<stdin>"))
        #expect(output.stderr.contains("$[1][0][3]"))
        #expect(output.stdout.isEmpty)
    }
}
