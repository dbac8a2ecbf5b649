/// A deterministic 128-bit hash of bytes (two FNV-1a 64-bit hashes with different offset
/// bases), for identifiers and file names that must come out the same on every run and
/// every machine. Not cryptographic: it tells contents apart, it does not resist attacks.
package struct StableHash: Sendable, Hashable {
    /// FNV-1a, 64 bits, with the standard offset basis.
    package var high: UInt64
    package var low: UInt64

    package init(_ bytes: some Sequence<UInt8>) {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second << 13) | (second >> 51)
        }
        high = first
        low = second
    }

    /// 32 lowercase hexadecimal digits.
    package var hex: String { Self.hex(high) + Self.hex(low) }

    /// A UUID-shaped text (`8-4-4-4-12`, RFC 9562 version 8, the custom-data version).
    package var uuidText: String {
        let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000
        let varianted = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let text = Array(Self.hex(versioned) + Self.hex(varianted))
        return String(text[0..<8]) + "-" + String(text[8..<12]) + "-" + String(text[12..<16]) + "-"
            + String(text[16..<20]) + "-" + String(text[20..<32])
    }

    package static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((value >> UInt64(shift)) & 0xF)]) }
        return text
    }
}
