/// Text for XML and HTML: the five markup characters written as entities, everything else
/// as it is. One spelling for the WebDAV request bodies and the printable timetable.
public enum MarkupText {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, safe in an element or an attribute.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
