/// Untrusted text made safe to show on a terminal: every control character is written as a
/// visible escape, never sent.
///
/// Calendar data (a SUMMARY from a mail attachment or a subscribed feed) and app manifests (a
/// usage-description string the app writes itself) are untrusted. Sent to a terminal as they
/// are, `ESC [31m` would colour the output, `ESC ] 52;c;… BEL` would set the clipboard in many
/// terminals, `CR` or `ESC [2J` would redraw a line or the screen, and a right-to-left override
/// (U+202E) would make text read differently from what it is. Every human-readable output of
/// ICalKit, OpenEventKit and `ical` goes through ``visible(_:_:)`` (or one of its shorthands);
/// data formats do not: JSON escapes the same characters as `\u` escapes of four hexadecimal digits (`\u001B`) and stays exact, and
/// iCalendar output stays lossless.
///
/// What is shown escaped (``isShownEscaped(_:)``):
///
/// - the C0 controls U+0000–U+001F, except a tab or a line feed where the options keep them
///   (carriage return is always escaped; a CR LF pair counts as one line break);
/// - DEL, U+007F;
/// - the C1 controls U+0080–U+009F (U+009B is a one-character CSI on many terminals);
/// - the bidirectional formatting characters that can make text read in another order:
///   the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, and the marks
///   U+200E, U+200F and U+061C;
/// - the line and paragraph separators U+2028 and U+2029.
///
/// The visible form is one rule for all of them: a backslash, `u`, and the code point in
/// upper-case hexadecimal of at least two digits, in braces, as Swift writes it: ESC is
/// `\u{1B}`, a line feed `\u{0A}`, CSI `\u{9B}`, the right-to-left override `\u{202E}`. The
/// form is for reading, not a reversible encoding: a backslash in the text is shown as it is,
/// so plain text is shown byte for byte unchanged. For the exact text use JSON.
///
/// ```swift
/// TerminalText.line("Piano\u{1B}[31m lesson")       // Piano\u{1B}[31m lesson
/// TerminalText.line("Room 4\nBuilding B")           // Room 4\u{0A}Building B
/// TerminalText.visible("why\nwe ask", .init(lineBreaks: .indented("  ")))  // "why\n  we ask"
/// ```
public enum TerminalText {
    /// How line feeds in the text are shown.
    public enum LineBreaks: Sendable, Hashable {
        /// Escaped (`\u{0A}`): the text stays on one line, so a value can never start a line
        /// that looks like another record. For one-record-per-line output.
        case visible
        /// Written as line feeds (a CR LF pair as one line feed). Only for text whose every
        /// line belongs to the same message, such as an error report.
        case kept
        /// Written as line feeds, each following line starting with this prefix, so a line
        /// from the text is always indented under the line that introduced it.
        case indented(String)
    }

    /// How tabs are shown.
    public enum Tabs: Sendable, Hashable {
        /// Escaped (`\u{09}`): for column layouts a tab would break.
        case visible
        /// Written as tabs.
        case kept
    }

    /// How ``visible(_:_:)`` shows a text.
    public struct Options: Sendable, Hashable {
        /// How line feeds are shown.
        public var lineBreaks: LineBreaks
        /// How tabs are shown.
        public var tabs: Tabs
        /// At most this many Unicode scalars are shown (escapes and line prefixes included);
        /// a longer text is cut and ends with `…`. Nil: no bound.
        public var maximumLength: Int?
        /// With line feeds kept or indented, at most this many lines are shown; a text with
        /// more is cut and ends with `…`. Nil: no bound.
        public var maximumLines: Int?

        /// Creates options; by default everything stays on one line, unbounded.
        public init(lineBreaks: LineBreaks = .visible, tabs: Tabs = .visible,
                    maximumLength: Int? = nil, maximumLines: Int? = nil) {
            self.lineBreaks = lineBreaks
            self.tabs = tabs
            self.maximumLength = maximumLength
            self.maximumLines = maximumLines
        }

        /// One line: line feeds and tabs escaped. For values in a record-per-line layout.
        public static let line = Options()

        /// Several lines: line feeds and tabs kept. For whole messages such as error reports.
        public static let lines = Options(lineBreaks: .kept, tabs: .kept)
    }

    /// The marker that ends a text cut by ``Options/maximumLength`` or ``Options/maximumLines``.
    public static let ellipsis: Character = "…"

    /// `text` with every character of ``isShownEscaped(_:)`` written as `\u{XX}`, following
    /// `options` for line feeds, tabs and length. Text with nothing to escape and within the
    /// bounds is returned unchanged.
    public static func visible(_ text: String, _ options: Options = .line) -> String {
        if !needsWork(text, options) && options.maximumLines == nil
            && (options.maximumLength.map { text.unicodeScalars.count <= $0 } ?? true) {
            return text
        }
        let limit = options.maximumLength.map { max($0, 1) }
        var out: [Unicode.Scalar] = []
        var ends: [Int] = []  // out.count after each piece, so a cut never splits an escape
        var cut = false
        var lines = 1

        /// Appends one piece (a scalar, an escape, a line break); false when it does not fit.
        func add(_ piece: [Unicode.Scalar]) -> Bool {
            if let limit, out.count + piece.count > limit {
                cut = true
                return false
            }
            out += piece
            ends.append(out.count)
            return true
        }

        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            var breakWidth = 0
            if scalar == "\n" {
                breakWidth = 1
            } else if scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" {
                breakWidth = 2
            }
            if breakWidth > 0, options.lineBreaks != .visible {
                if let maximumLines = options.maximumLines, lines >= maximumLines {
                    cut = true
                    break
                }
                var piece: [Unicode.Scalar] = ["\n"]
                if case .indented(let prefix) = options.lineBreaks { piece += prefix.unicodeScalars }
                guard add(piece) else { break }
                lines += 1
                index += breakWidth
                continue
            }
            let kept = scalar == "\t" ? options.tabs == .kept : !isShownEscaped(scalar)
            guard add(kept ? [scalar] : Array(escape(scalar).unicodeScalars)) else { break }
            index += 1
        }
        if cut {
            // Make room for the ellipsis by whole pieces.
            if let limit {
                while out.count + 1 > limit, ends.popLast() != nil { out.removeSubrange((ends.last ?? 0)...) }
            }
            out.append(contentsOf: String(ellipsis).unicodeScalars)
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: out)
        return String(view)
    }

    /// `text` on one line (``Options/line``), at most `maximumLength` Unicode scalars.
    public static func line(_ text: String, maximumLength: Int? = nil) -> String {
        visible(text, Options(maximumLength: maximumLength))
    }

    /// `text` with its line feeds and tabs kept (``Options/lines``) and everything else escaped.
    public static func lines(_ text: String) -> String {
        visible(text, .lines)
    }

    /// Whether `scalar` is always shown escaped: a C0 control (tab and line feed included;
    /// the options decide whether those two are kept), DEL, a C1 control, a bidirectional
    /// embedding, override, isolate or mark, or a line or paragraph separator.
    public static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The visible form of a scalar: `\u{1B}`, `\u{0A}`, `\u{202E}`.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
    }

    /// Whether `text` holds anything ``isShownEscaped(_:)`` (tabs and line feeds included).
    public static func containsEscapable(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isShownEscaped)
    }

    /// Whether the text has anything to change under `options` (a quick byte check first:
    /// every scalar to escape is a byte below 0x20, DEL, or starts with 0xC2, 0xD8 or 0xE2).
    private static func needsWork(_ text: String, _ options: Options) -> Bool {
        let suspicious = text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }
        guard suspicious else { return false }
        return text.unicodeScalars.contains { scalar in
            switch scalar {
            case "\t": options.tabs == .visible
            case "\n": options.lineBreaks != .kept
            default: isShownEscaped(scalar)
            }
        }
    }
}
