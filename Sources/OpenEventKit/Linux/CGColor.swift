import Foundation

/// A colour in RGBA: a Linux-only stand-in for Core Graphics' `CGColor`, which does not
/// exist on Linux, with the spellings EventKit code uses (`CGColor(red:green:blue:alpha:)`,
/// `components`, `alpha`, `numberOfComponents`). Calendars store it as `#RRGGBB` (or
/// `#RRGGBBAA` when not opaque) in their `color` file.
public final class CGColor: NSObject, @unchecked Sendable {
    /// Red, green, blue and alpha, each 0…1.
    public let components: [CGFloat]?

    /// Creates a colour from red, green, blue and alpha components (0…1, clamped).
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        components = [red, green, blue, alpha].map { min(max($0, 0), 1) }
        super.init()
    }

    /// The number of components: 4 (RGBA).
    public var numberOfComponents: Int { components?.count ?? 0 }

    /// The alpha component.
    public var alpha: CGFloat { components?.last ?? 1 }

    /// Reads `#RRGGBB` or `#RRGGBBAA`; nil for anything else.
    public convenience init?(hexString text: String) {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "#"), bytes.count == 7 || bytes.count == 9 else { return nil }
        var values: [CGFloat] = []
        var index = 1
        while index < bytes.count {
            guard let value = UInt8(String(decoding: bytes[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            values.append(CGFloat(value) / 255)
            index += 2
        }
        self.init(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] : 1)
    }

    /// `#RRGGBB`, or `#RRGGBBAA` when the colour is not opaque.
    public var hexString: String {
        let parts = (components ?? [0, 0, 0, 1]).map { Int(($0 * 255).rounded()) }
        let rgb = parts.prefix(3).map { String(format: "%02X", $0) }.joined()
        return "#" + rgb + (parts[3] == 255 ? "" : String(format: "%02X", parts[3]))
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CGColor)?.hexString == hexString
    }

    public override var hash: Int { hexString.hashValue }
}
