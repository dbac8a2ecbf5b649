/// Small byte and case helpers shared by the reader, the writer and the model.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let caret: UInt8 = 0x5E

    /// iana-token and x-name characters: ALPHA, DIGIT and "-" (RFC 5545 §3.1).
    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }

    /// Compares two names ignoring ASCII case, as RFC 5545 names are compared.
    @inline(__always)
    static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        // Names are compared by the million while reading and querying: compare lengths,
        // then the bytes in place.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right -> Bool in
                for index in 0..<left.count where left[index] != right[index] && upper(left[index]) != upper(right[index]) {
                    return false
                }
                return true
            }
        }
        if let inPlace, let result = inPlace { return result }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (a?, b?):
                if a == b { continue }
                if upper(a) != upper(b) { return false }
            default: return false
            }
        }
    }

    /// Compares bytes with a name written in capitals (`"BEGIN"`), ignoring the case of the
    /// bytes: ``equalsIgnoringCase(_:_:)`` for a name not yet made a `String`.
    @inline(__always)
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ uppercase: StaticString) -> Bool {
        guard bytes.count == uppercase.utf8CodeUnitCount else { return false }
        let known = uppercase.utf8Start
        for index in 0..<bytes.count where upper(bytes[index]) != known[index] { return false }
        return true
    }

    /// Compares a name with a name written in capitals (`"DTSTART"`), ignoring the name's
    /// case: ``equalsIgnoringCase(_:_:)`` with the second name's bytes known.
    @inline(__always)
    static func equalsIgnoringCase(_ name: String, _ uppercase: StaticString) -> Bool {
        guard name.utf8.count == uppercase.utf8CodeUnitCount else { return false }
        if let result = name.utf8.withContiguousStorageIfAvailable({ equalsIgnoringCase($0, uppercase) }) { return result }
        return equalsIgnoringCase(name, uppercase.description)
    }

    @inline(__always)
    static func upper(_ byte: UInt8) -> UInt8 {
        (byte >= 0x61 && byte <= 0x7A) ? byte - 0x20 : byte
    }

    /// Whether any of the eight bytes of `word` is `byte` (the zero-byte test of
    /// "Bit Twiddling Hacks" on `word` with `byte` cleared out; exact, never a false hit).
    @inline(__always)
    static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }

    /// Whether bytes are well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no
    /// surrogates, nothing above U+10FFFF), as `String(validating:as:)` checks.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            // Runs of ASCII, most of any calendar, eight bytes at a time.
            if let base = bytes.baseAddress {
                while index + 8 <= count
                        && UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                if index >= count { break }
            }
            let lead = bytes[index]
            if lead < 0x80 { index += 1; continue }
            @inline(__always) func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
                index + offset < count && range.contains(bytes[index + offset])
            }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(1) else { return false }
                index += 2
            case 0xE0:
                guard continuation(1, 0xA0...0xBF), continuation(2) else { return false }
                index += 3
            case 0xE1...0xEC, 0xEE...0xEF:
                guard continuation(1), continuation(2) else { return false }
                index += 3
            case 0xED:
                guard continuation(1, 0x80...0x9F), continuation(2) else { return false }
                index += 3
            case 0xF0:
                guard continuation(1, 0x90...0xBF), continuation(2), continuation(3) else { return false }
                index += 4
            case 0xF1...0xF3:
                guard continuation(1), continuation(2), continuation(3) else { return false }
                index += 4
            case 0xF4:
                guard continuation(1, 0x80...0x8F), continuation(2), continuation(3) else { return false }
                index += 4
            default:
                return false
            }
        }
        return true
    }

    /// Uppercases ASCII letters only (names are ASCII; values are never passed here).
    static func uppercased(_ name: String) -> String {
        var needs = false
        for byte in name.utf8 where byte >= 0x61 && byte <= 0x7A { needs = true; break }
        guard needs else { return name }
        return String(decoding: name.utf8.map(upper), as: UTF8.self)
    }
}
