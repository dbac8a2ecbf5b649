import ICalKit
/// File names for items and collections: derived from untrusted text (a UID, a title) only
/// after sanitising, so a name is always one plain entry inside its folder.
package enum ItemFileName {
    /// The longest stem (without the hash suffix and `.ics`) kept from a UID, in bytes.
    package static let maximumStemLength = 96

    /// The file name for an item with this UID: the UID itself when it is already a safe,
    /// lowercase, short ASCII name (`lesson-1@example.com.ics`); otherwise a sanitised stem
    /// followed by `-` and 16 hexadecimal digits of a hash of the exact UID bytes.
    ///
    /// Safe characters are ASCII letters, digits and `-_.@+=`. Anything else (`/`, NUL,
    /// control characters, spaces, non-ASCII) becomes `_`; a leading dot and `..` are
    /// broken up. Uppercase letters also get the hash suffix, so two UIDs that differ
    /// only in case never share a file on a case-insensitive file system.
    package static func forUID(_ uid: String) -> String {
        var stem: [UInt8] = []
        var changed = false
        for byte in uid.utf8 {
            if isSafe(byte) {
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { changed = true }
                stem.append(byte)
            } else {
                stem.append(UInt8(ascii: "_"))
                changed = true
            }
        }
        // Break up `..` and a leading dot.
        var index = 0
        while index + 1 < stem.count {
            if stem[index] == UInt8(ascii: ".") && stem[index + 1] == UInt8(ascii: ".") {
                stem[index + 1] = UInt8(ascii: "_")
                changed = true
            }
            index += 1
        }
        if stem.first == UInt8(ascii: ".") {
            stem[0] = UInt8(ascii: "_")
            changed = true
        }
        if stem.count > maximumStemLength {
            stem.removeSubrange(maximumStemLength...)
            changed = true
        }
        if stem.isEmpty {
            stem = Array("item".utf8)
            changed = true
        }
        var name = String(decoding: stem, as: UTF8.self)
        if changed {
            name += "-" + hex(StableHash(Array(uid.utf8)).high)
        }
        return name + ".ics"
    }

    /// A new, random collection identifier (a lowercase UUID-shaped name).
    package static func newCollectionIdentifier() -> String {
        let high = StoreSystem.randomNumber(), low = StoreSystem.randomNumber()
        let text = Array(hex(high) + hex(low))
        return String(text[0..<8]) + "-" + String(text[8..<12]) + "-" + String(text[12..<16]) + "-"
            + String(text[16..<20]) + "-" + String(text[20..<32])
    }

    /// Whether a name is one plain, visible entry that the store may create: non-empty, at
    /// most 200 bytes, only safe characters, no leading dot.
    package static func isSafeName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 200, bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy(isSafe)
    }

    /// Whether a name is an item file the store reads: visible and ending in `.ics`.
    package static func isItemFile(_ name: String) -> Bool {
        !name.hasPrefix(".") && name.utf8.count > 4 && name.lowercased().hasSuffix(".ics")
    }

    /// Whether a name, written by any program, is one visible entry of a folder: not
    /// empty, at most 255 bytes, no `/`, NUL or control character, no leading dot.
    /// Existing collections and items (a khal folder's) must pass this to be used.
    package static func isCollectionName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes[0] != UInt8(ascii: ".") else { return false }
        return !bytes.contains { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7F }
    }

    /// Whether a name, written by any program, is a usable item file name.
    package static func isItemName(_ name: String) -> Bool {
        isCollectionName(name) && isItemFile(name)
    }

    static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// 16 hexadecimal digits of a 64-bit value.
    static func hex(_ value: UInt64) -> String { StableHash.hex(value) }
}
