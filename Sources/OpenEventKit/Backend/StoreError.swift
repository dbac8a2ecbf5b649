#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

/// An error from the folder store, in the shape of NIO's `FileSystemError`: a code, a
/// message for a person, the path or identifier involved, and the underlying cause.
///
/// ``description`` is one line; ``detailedDescription()`` prints the chain of causes.
package struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The kind of problem: an open set (a struct over a private enum), so a new code never
    /// breaks a `switch` elsewhere.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case io, notFound, alreadyExists, conflict, invalidName, invalidItem, invalidBatch
            case corruptMetadata, unsupportedFormat, noLocation, incompleteCommit
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        package var description: String { value.rawValue }

        /// A system call failed (the cause names it and its errno).
        package static let io = Code(.io)
        /// A collection or item that the operation needs is not there.
        package static let notFound = Code(.notFound)
        /// A collection that the operation creates is already there.
        package static let alreadyExists = Code(.alreadyExists)
        /// A file changed on disk since the caller read it (or appeared, or disappeared).
        package static let conflict = Code(.conflict)
        /// A collection identifier or item file name is not a safe plain name.
        package static let invalidName = Code(.invalidName)
        /// An item is not one VCALENDAR holding events or to-dos of one UID.
        package static let invalidItem = Code(.invalidItem)
        /// A batch contradicts itself (two writes to one file, a put into a deleted collection).
        package static let invalidBatch = Code(.invalidBatch)
        /// `.openeventkit/store.json` or the journal cannot be read.
        package static let corruptMetadata = Code(.corruptMetadata)
        /// The store was written by a newer format version.
        package static let unsupportedFormat = Code(.unsupportedFormat)
        /// No store location: none of the environment variables is set.
        package static let noLocation = Code(.noLocation)
        /// The batch is committed (its journal is on disk) but applying it failed; the next
        /// commit or open of the store finishes it.
        package static let incompleteCommit = Code(.incompleteCommit)

        /// Matches an error against a code in `catch` patterns.
        package static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StoreError)?.code == code
        }
    }

    /// What kind of problem this is.
    package var code: Code
    /// What went wrong, for a person.
    package var message: String
    /// The file, folder or collection involved, when there is one.
    package var path: String?
    /// The underlying error, when there is one (a ``SystemCallError``, an `ICalError`, ...).
    package var cause: (any Error & Sendable)?
    /// Where in this module the error was made.
    package var location: SourceLocation

    /// A source location, for ``detailedDescription()``.
    package struct SourceLocation: Sendable, Hashable {
        package var function: String
        package var file: String
        package var line: Int
    }

    package init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error & Sendable)? = nil,
                 function: String = #function, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.location = SourceLocation(function: function, file: file, line: line)
    }

    /// `conflict: <message> (path)`, one line.
    package var description: String {
        var text = "\(code): \(message)"
        if let path { text += " (\(path))" }
        return text
    }

    /// The error and its chain of causes, one per line.
    package func detailedDescription() -> String {
        var lines = ["Error: \(description)"]
        var next = cause
        while let current = next {
            if let store = current as? StoreError {
                lines.append("Cause: \(store.description)")
                next = store.cause
            } else {
                lines.append("Cause: \(current)")
                next = nil
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The EventKit error this becomes at the EKEventStore surface.
    package var eventKitError: EKError {
        let ekCode: EKError.Code
        switch code {
        case .notFound: ekCode = .noCalendar
        case .invalidItem: ekCode = .invalidEntityType
        default: ekCode = .internalFailure
        }
        return EKError(ekCode, message, path: path)
    }
}

/// A failed system call: its name and errno.
package struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The C function (`open`, `rename`, `fsync`).
    package var function: String
    /// The errno it left.
    package var errno: Int32

    package var description: String {
        "'\(function)' system call failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
