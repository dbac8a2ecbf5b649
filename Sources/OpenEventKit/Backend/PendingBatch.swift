/// The changes an event store collects between commits (`save(_:span:commit: false)`),
/// with EventKit's rule for failures: a batch that failed to commit makes every later
/// commit fail, with the same error, until ``reset()``.
package struct PendingBatch: Sendable {
    /// The changes not yet committed.
    package private(set) var batch = Batch()
    /// The error of the commit that failed, until ``reset()``.
    package private(set) var failure: StoreError?

    package init() {}

    /// Adds changes to the pending batch.
    package mutating func add(_ change: (inout Batch) throws(StoreError) -> Void) throws(StoreError) {
        if let failure { throw failure }
        try change(&batch)
    }

    /// Commits the pending changes all or nothing. On failure nothing is written, the
    /// changes stay pending, and this and every later commit throw until ``reset()``.
    @discardableResult
    package mutating func commit(to store: FolderStore) throws(StoreError) -> CommitResult {
        if let failure { throw failure }
        do {
            let result = try store.commit(batch)
            batch = Batch()
            return result
        } catch {
            failure = error
            throw error
        }
    }

    /// Drops the pending changes and a recorded failure.
    package mutating func reset() {
        batch = Batch()
        failure = nil
    }
}
