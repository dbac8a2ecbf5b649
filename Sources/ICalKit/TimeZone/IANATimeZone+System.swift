#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

extension IANATimeZone {
    /// The zone this process runs in: `$TZ` when it names a zone in tzdata (a leading `:`
    /// is allowed), else the zone `/etc/localtime` links to, else nil (the caller decides;
    /// `ical` uses UTC).
    public static func system(environment: [String: String]? = nil) -> IANATimeZone? {
        let value: String?
        if let environment {
            value = environment["TZ"]
        } else if let raw = getenv("TZ") {
            value = String(cString: raw)
        } else {
            value = nil
        }
        if var name = value, !name.isEmpty {
            if name.hasPrefix(":") { name.removeFirst() }
            if name.hasPrefix("/") {
                if let zone = zone(fromLink: name) { return zone }
            }
            if let zone = IANATimeZone(named: name) { return zone }
        }
        return zone(fromLink: "/etc/localtime")
    }

    /// The zone a path such as `/etc/localtime` links to, read from the link's target name.
    private static func zone(fromLink path: String) -> IANATimeZone? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = target.split(separator: "/", omittingEmptySubsequences: true)
        guard let index = parts.lastIndex(of: "zoneinfo"), index + 1 < parts.count else { return nil }
        return IANATimeZone(named: parts[(index + 1)...].joined(separator: "/"))
    }
}
