import Foundation

/// The few JSON forms that ``StoreMetadata/init(plainJSON:)`` and
/// ``AuthorizationRecords/init(plainJSON:)`` read, for the store's own small files as it
/// writes them: each method reads one value after white space, or returns nil (the text is
/// then left to `JSONDecoder`, with its errors).
struct PlainJSONReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Whether only white space is left.
    var atEnd: Bool {
        mutating get {
            skipSpace()
            return position == bytes.count
        }
    }

    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Takes `byte` after white space, if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// A string without escapes or control characters, in valid UTF-8.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            guard bytes[position] >= 0x20, bytes[position] != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return String(validating: bytes[start..<position], as: UTF8.self)
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        skipSpace()
        for (word, value) in [("true", true), ("false", false)] where bytes[position...].starts(with: word.utf8) {
            position += word.utf8.count
            return value
        }
        return nil
    }

    /// A non-negative integer of at most 18 digits, without a fraction or exponent.
    mutating func integer() -> Int? {
        skipSpace()
        let start = position
        var value = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - start
        guard digits > 0, digits <= 18, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return value
    }

    /// An object, each member's value read by `member` (false: not a form read here).
    mutating func object(_ member: (String, inout PlainJSONReader) -> Bool) -> Bool? {
        guard take(UInt8(ascii: "{")) else { return nil }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), member(key, &self) else { return nil }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? true : nil
    }

    /// An array, each element read by `element` (false: not a form read here).
    mutating func array(_ element: (inout PlainJSONReader) -> Bool) -> Bool? {
        guard take(UInt8(ascii: "[")) else { return nil }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return nil }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? true : nil
    }
}
