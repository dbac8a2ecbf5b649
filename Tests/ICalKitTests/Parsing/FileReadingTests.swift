import Foundation
import ICalKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `FileIO.readAll`: a regular file is read straight into the result (its size known from
/// `fstat`); anything else (a pipe, a file whose size the system reports as 0) in pieces.
/// Both ways give every byte, and both refuse more than the limit.
@Suite struct FileReadingTests {
    private let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("icalkit-read-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test(arguments: [0, 1, 114, 4095, 4096, 4097, 65535, 65536, 65537, 300_000])
    func aRegularFileIsReadWhole(count: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let expected = Self.bytes(count, seed: UInt64(count) + 7)
        let path = try file("f-\(count)", expected)
        #expect(try FileIO.readAll(path: path, limit: 1 << 20) == expected)
    }

    @Test func aRegularFileOfTheLimitIsReadAndOneByteMoreIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let atLimit = try file("at", Self.bytes(5000, seed: 1))
        #expect(try FileIO.readAll(path: atLimit, limit: 5000).count == 5000)
        let over = try file("over", Self.bytes(5001, seed: 2))
        #expect {
            try FileIO.readAll(path: over, limit: 5000)
        } throws: { error in
            (error as? ICalError)?.code == .limitExceeded && (error as? ICalError)?.file == over
        }
    }

    /// A FIFO has no size: it is read in pieces, larger than one piece here, from a writer
    /// on another thread.
    @Test(arguments: [0, 10, 65536, 200_000])
    func aPipeIsReadInPieces(count: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fifo-\(count)"
        #expect(mkfifo(path, 0o600) == 0)
        let expected = Self.bytes(count, seed: UInt64(count) + 3)
        let writer = Thread {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { return }
            expected.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(descriptor)
        }
        writer.start()
        #expect(try FileIO.readAll(path: path, limit: 1 << 20) == expected)
    }

    @Test func aPipeLongerThanTheLimitIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fifo-long"
        #expect(mkfifo(path, 0o600) == 0)
        // 20,000 bytes fit in the pipe at once: the writer is done before the reader stops,
        // so no write meets a closed pipe.
        let writer = Thread {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { return }
            let block = [UInt8](repeating: 0x41, count: 20_000)
            _ = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        writer.start()
        #expect {
            try FileIO.readAll(path: path, limit: 10_000)
        } throws: { error in
            (error as? ICalError)?.code == .limitExceeded && (error as? ICalError)?.file == path
        }
    }

    /// `/proc` files say they are empty and are not: the size is not trusted to be the end.
    @Test func aFileThatSaysItIsEmptyIsReadToItsEnd() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try FileIO.readAll(path: "/proc/self/status", limit: 1 << 20)
        #expect(String(decoding: bytes, as: UTF8.self).contains("Name:"))
    }

    @Test func aFolderAndAMissingFileAreErrorsThatNameThePath() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect {
            try FileIO.readAll(path: folder, limit: 1 << 20)
        } throws: { error in
            (error as? ICalError)?.code == .io && (error as? ICalError)?.file == folder
        }
        let missing = folder + "/missing.ics"
        #expect {
            try FileIO.readAll(path: missing, limit: 1 << 20)
        } throws: { error in
            (error as? ICalError)?.code == .io && (error as? ICalError)?.file == missing
        }
    }
}
