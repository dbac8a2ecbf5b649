import Foundation
import GRDB
@testable import OpenEventKit
import Testing

/// `DatabaseQueue.reading`, the index's read transaction with its statements kept prepared:
/// its statements see one state of the file while another connection writes, and it leaves
/// no transaction open, whether its body returns or throws.
@Suite struct IndexReadingTests {
    private struct Failure: Error {}

    private let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("oek-reading-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// A file database in WAL mode (as the index is) with three rows.
    private func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: folder + "/index.sqlite")
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t (n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
        }
        return queue
    }

    @Test func aReadSeesOneStateWhileAnotherConnectionWrites() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = try queue()
        let writer = try DatabaseQueue(path: folder + "/index.sqlite")
        let (before, after, inside) = try queue.reading { db in
            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
            try writer.write { try $0.execute(sql: "INSERT INTO t VALUES (4)") }
            let after = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
            return (before, after, db.isInsideTransaction)
        }
        #expect(before == 3 && after == 3)
        #expect(inside)
        #expect(try queue.inDatabase { $0.isInsideTransaction } == false)
        // The next read is a new transaction: it sees the row.
        #expect(try queue.reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 4)
    }

    @Test func aReadThatThrowsLeavesNoTransactionOpen() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = try queue()
        #expect(throws: Failure.self) {
            try queue.reading { db -> Int in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM t")
                throw Failure()
            }
        }
        #expect(try queue.inDatabase { $0.isInsideTransaction } == false)
        // A statement that fails inside is the read's error, and the next read works.
        #expect(throws: DatabaseError.self) {
            try queue.reading { db in try Int.fetchOne(db, sql: "SELECT n FROM missing") }
        }
        #expect(try queue.inDatabase { $0.isInsideTransaction } == false)
        #expect(try queue.reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 3)
    }
}
