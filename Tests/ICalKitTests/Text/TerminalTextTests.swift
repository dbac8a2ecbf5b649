import Testing
import ICalKit

/// Every class of character the terminal must never receive, with its visible form.
@Suite struct TerminalTextTests {
    /// (scalar, visible form, class).
    static let escaped: [(UInt32, String, String)] = [
        (0x00, "\\u{00}", "C0 NUL"), (0x07, "\\u{07}", "C0 BEL"), (0x08, "\\u{08}", "C0 BS"),
        (0x09, "\\u{09}", "C0 tab"), (0x0A, "\\u{0A}", "C0 line feed"), (0x0B, "\\u{0B}", "C0 VT"),
        (0x0C, "\\u{0C}", "C0 FF"), (0x0D, "\\u{0D}", "C0 CR"), (0x1B, "\\u{1B}", "C0 ESC"), (0x1F, "\\u{1F}", "C0 US"),
        (0x7F, "\\u{7F}", "DEL"),
        (0x80, "\\u{80}", "C1 PAD"), (0x85, "\\u{85}", "C1 NEL"), (0x90, "\\u{90}", "C1 DCS"),
        (0x9B, "\\u{9B}", "C1 CSI"), (0x9D, "\\u{9D}", "C1 OSC"), (0x9F, "\\u{9F}", "C1 APC"),
        (0x061C, "\\u{61C}", "Arabic letter mark"), (0x200E, "\\u{200E}", "LRM"), (0x200F, "\\u{200F}", "RLM"),
        (0x202A, "\\u{202A}", "LRE"), (0x202B, "\\u{202B}", "RLE"), (0x202C, "\\u{202C}", "PDF"),
        (0x202D, "\\u{202D}", "LRO"), (0x202E, "\\u{202E}", "RLO"),
        (0x2066, "\\u{2066}", "LRI"), (0x2067, "\\u{2067}", "RLI"), (0x2068, "\\u{2068}", "FSI"), (0x2069, "\\u{2069}", "PDI"),
        (0x2028, "\\u{2028}", "line separator"), (0x2029, "\\u{2029}", "paragraph separator"),
    ]

    @Test(arguments: escaped)
    func everyControlClassIsShownEscaped(_ value: UInt32, _ visible: String, _ name: String) throws {
        let scalar = try #require(Unicode.Scalar(value))
        #expect(TerminalText.isShownEscaped(scalar), "\(name)")
        #expect(TerminalText.line("a\(Character(scalar))b") == "a\(visible)b", "\(name)")
        #expect(TerminalText.escape(scalar) == visible)
    }

    @Test func everyScalarBelowA0IsEscapedInALine() {
        for value in UInt32(0)..<0xA0 {
            let scalar = Unicode.Scalar(value)!
            let shown = TerminalText.line(String(Character(scalar)))
            if (0x20..<0x7F).contains(value) {
                #expect(shown == String(Character(scalar)))
            } else {
                #expect(shown.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) }, "U+\(value)")
            }
        }
    }

    @Test func plainTextIsUnchanged() {
        for text in ["", "Piano lesson", "Café “Zur Post” – Raum 4 …", "C:\\Users\\me", "日本語 👨‍👩‍👧 עברית", "a\u{00A0}b"] {
            #expect(TerminalText.line(text) == text)
            #expect(TerminalText.lines(text) == text)
        }
    }

    @Test func escapeSequencesBecomeReadable() {
        let osc52 = "\u{1B}]52;c;cm0gLXJmIH4=\u{07}"
        #expect(TerminalText.line("Lesson\u{1B}[31m red\(osc52)") == "Lesson\\u{1B}[31m red\\u{1B}]52;c;cm0gLXJmIH4=\\u{07}")
        #expect(TerminalText.line("\u{9B}2J") == "\\u{9B}2J")
        #expect(TerminalText.line("abc\u{202E}fdp.exe") == "abc\\u{202E}fdp.exe")
    }

    @Test func lineBreaksAndTabs() {
        let text = "one\ttwo\nthree\r\nfour\rfive"
        #expect(TerminalText.line(text) == "one\\u{09}two\\u{0A}three\\u{0D}\\u{0A}four\\u{0D}five")
        #expect(TerminalText.lines(text) == "one\ttwo\nthree\nfour\\u{0D}five")
        #expect(TerminalText.visible(text, .init(lineBreaks: .indented("  | "), tabs: .visible))
            == "one\\u{09}two\n  | three\n  | four\\u{0D}five")
        #expect(TerminalText.visible("a\tb", .init(lineBreaks: .visible, tabs: .kept)) == "a\tb")
    }

    @Test func lengthIsBoundedWithAnEllipsis() {
        #expect(TerminalText.line("abcdef", maximumLength: 6) == "abcdef")
        #expect(TerminalText.line("abcdefg", maximumLength: 6) == "abcde…")
        // An escape is never cut in half.
        #expect(TerminalText.line("abcd\u{1B}xyz", maximumLength: 8) == "abcd…")
        #expect(TerminalText.line("ab\u{1B}", maximumLength: 8) == "ab\\u{1B}")
        #expect(TerminalText.line(String(repeating: "\u{1B}", count: 1000), maximumLength: 20).unicodeScalars.count <= 20)
        #expect(TerminalText.line("abc", maximumLength: 0) == "…")
    }

    @Test func lineCountIsBounded() {
        let options = TerminalText.Options(lineBreaks: .indented("  "), maximumLines: 2)
        #expect(TerminalText.visible("a\nb", options) == "a\n  b")
        #expect(TerminalText.visible("a\nb\nc\nd", options) == "a\n  b…")
    }

    @Test func escapingIsIdempotent() {
        let text = "\u{1B}[2J\u{9B}\u{202E}\n\t\u{7F}"
        let once = TerminalText.line(text)
        #expect(TerminalText.line(once) == once)
        #expect(!TerminalText.containsEscapable(once))
        #expect(TerminalText.containsEscapable(text))
    }
}
