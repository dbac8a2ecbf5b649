import Foundation
import Testing

/// The printable page of `ical view --format html` (and the picture of `--format svg`) in a
/// real browser: Debian's Chromium, headless (`make test` installs it:
/// `sh scripts/deps.sh chromium python3`), renders the sample term's month and weekly timetable to
/// PNG, and prints the pages to PDF on A4 and Letter. The PNG is
/// decoded (a few lines of Python's zlib, no new dependency) to check that the page drew
/// something: its size, and enough non-white pixels in enough colours.
@Suite(.serialized) struct ViewBrowserTests {
    /// The browser, or nil when it is not installed.
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Decodes a PNG (8-bit RGB or RGBA, not interlaced) and prints `width height non-white distinct-colours`.
    static let pngChecker = """
        import struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'not a PNG'
        pos, idat, header = 8, b'', None
        while pos < len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b'IHDR': header = struct.unpack('>IIBBBBB', body)
            if kind == b'IDAT': idat += body
            pos += 12 + length
        width, height, depth, colour, _, _, interlace = header
        assert depth == 8 and colour in (2, 6) and interlace == 0, 'unexpected PNG format %r' % (header,)
        bpp = 3 if colour == 2 else 4
        raw, stride = zlib.decompress(idat), width * bpp
        previous, non_white, colours, i = bytearray(stride), 0, set(), 0
        for _ in range(height):
            kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
            i += 1 + stride
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = previous[x]
                c = previous[x - bpp] if x >= bpp else 0
                if kind == 1: line[x] = (line[x] + a) & 255
                elif kind == 2: line[x] = (line[x] + b) & 255
                elif kind == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            for x in range(0, stride, bpp):
                pixel = bytes(line[x:x + 3])
                if min(pixel) < 235: non_white += 1
                if len(colours) < 5000: colours.add(pixel)
            previous = line
        print(width, height, non_white, len(colours))
        """

    /// Runs Chromium headless (as root it needs --no-sandbox), with its profile in `folder`
    /// and at most 180 seconds.
    private func chromium(_ arguments: [String], in folder: TemporaryFolder) throws -> (status: Int32, output: String) {
        let browser = try #require(Self.chromium, "chromium is not installed: run sh scripts/deps.sh chromium python3 (make test does)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["180", browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                             "--user-data-dir=" + folder.url.appendingPathComponent("profile").path] + arguments
        process.environment = ["HOME": folder.url.path, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: PipeReader.readAll(output.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The sample term (ical lessons --spec samples/calendars/term.yaml) and its view as a page.
    private func page(_ view: [String], paper: String, format: String = "html", in folder: TemporaryFolder) throws -> String {
        let spec = ICalRunner.packageRoot.appendingPathComponent("samples/calendars/term.yaml").path
        let term = folder.url.appendingPathComponent("term.ics").path
        if !FileManager.default.fileExists(atPath: term) {
            let lessons = try ICalRunner.run(["lessons", "--spec", spec, "-o", term])
            #expect(lessons.status == 0, "\(lessons.stderr)")
        }
        let path = folder.url.appendingPathComponent("\(view[1])-\(paper).\(format)").path
        let output = try ICalRunner.run(view + ["--tz", "Europe/Berlin", "--format", format, "--paper", paper, "--holidays", spec,
                                                "--title", "Music school, autumn term 2026", "-o", path, term])
        #expect(output.status == 0, "\(output.stderr)")
        return path
    }

    @Test(arguments: [(["view", "month", "2026-12"], "html"), (["view", "week", "2026-12-14"], "html"),
                      (["view", "month", "2026-11"], "svg"), (["view", "week", "2026-11-30"], "svg")])
    func rendersToANonBlankPNG(view: [String], format: String) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let page = try self.page(view, paper: "auto", format: format, in: folder)
        let png = folder.url.appendingPathComponent("page.png").path
        let run = try chromium(["--window-size=1123,794", "--screenshot=" + png, URL(fileURLWithPath: page).absoluteString], in: folder)
        #expect(run.status == 0, "\(run.output)")
        let checker = try folder.write("check.py", Self.pngChecker)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [checker, png]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: PipeReader.readAll(output.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let numbers = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(numbers.count == 4, "\(text)")
        #expect(numbers[0] == 1123 && numbers[1] == 794, "\(text)")
        // The grid, its text and the entries' colours: far from a blank page.
        #expect(numbers[2] > 20_000, "non-white pixels: \(numbers[2])")
        #expect(numbers[3] > 50, "colours: \(numbers[3])")
    }

    @Test(arguments: [("a4", 842, 595), ("letter", 792, 612)])
    func printsOnOneLandscapePage(paper: String, width: Int, height: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // November 2026 takes six weeks (Monday first): the tallest month.
        for view in [["view", "month", "2026-11"], ["view", "week", "2026-12-14"]] {
            let page = try self.page(view, paper: paper, in: folder)
            let pdf = folder.url.appendingPathComponent("\(view[1]).pdf").path
            let run = try chromium(["--no-pdf-header-footer", "--print-to-pdf=" + pdf, URL(fileURLWithPath: page).absoluteString], in: folder)
            #expect(run.status == 0, "\(run.output)")
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: pdf)), as: UTF8.self)
            let pages = text.components(separatedBy: "/Type /Page").count - 1 - (text.components(separatedBy: "/Type /Pages").count - 1)
            #expect(pages == 1, "\(view[1]) on \(paper): \(pages) pages")
            // Every page box is the paper turned landscape, in points (A4 is 841.92 by 594.96).
            let boxes = text.components(separatedBy: "/MediaBox [").dropFirst().map { box in
                box.prefix { $0 != "]" }.split(separator: " ").compactMap { Double($0) }.map { Int($0.rounded()) }
            }
            #expect(!boxes.isEmpty && boxes.allSatisfy { $0 == [0, 0, width, height] }, "\(view[1]) on \(paper): \(boxes)")
        }
    }
}
