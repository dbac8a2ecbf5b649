#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the listing formats write their bytes: an `[UInt8]` or a ``ByteBuffer``.
///
/// The formatter's helpers are generic over it, so the same code writes into the output array
/// and into the buffer a listing is gathered in (specialised for each).
package protocol ByteSink: ~Copyable {
    /// The number of bytes written so far.
    var count: Int { get }
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends bytes.
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer)
}

extension ByteSink where Self: ~Copyable {
    /// Appends a string's UTF-8 bytes.
    package mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: UnsafeRawBufferPointer($0)) }
    }

    /// Appends bytes of an array.
    package mutating func append(bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// Appends a static string's bytes.
    package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: UnsafeRawBufferPointer($0)) }
    }
}

extension Array: ByteSink where Element == UInt8 {}

/// A growable run of bytes written through a pointer: what one listing appends, gathered
/// before it goes to the output at once.
///
/// An `Array` append of a few bytes costs a call through the generic sequence machinery, a
/// uniqueness check and a capacity check (about 85 instructions); a listing is some forty such
/// appends. Here an append is a capacity check and a copy. Not copyable: the buffer owns its
/// memory and frees it when it ends.
package struct ByteBuffer: ~Copyable, ByteSink {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    package private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes (it grows past them as needed).
    package init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    package mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        memcpy(base + count, source, bytes.count)
        count += bytes.count
    }

    /// Forgets the bytes written, keeping the memory.
    package mutating func removeAll() { count = 0 }

    /// Calls `body` with the bytes written (valid only inside it).
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Moves to a block with room for `extra` more bytes (at least twice the size).
    private mutating func grow(toHold extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }
}
