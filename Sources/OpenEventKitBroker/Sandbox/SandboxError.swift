/// Why an app could not be started in the sandbox, with what to do about it.
///
/// The ``description`` is the whole message, ready to print: what is wrong and what to do.
/// ``code`` says which kind of failure it is, so callers can branch on it
/// (`catch SandboxError.Code.landlockTooOld`), ``path`` names the file or folder involved,
/// and ``errno`` the C error, when there is one.
package struct SandboxError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kind of failure. A RawRepresentable struct rather than an enum, so that adding a
    /// kind breaks no `switch`.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's number; stable, but meaningful only within this module.
        package let rawValue: Int
        /// Wraps a number; unknown numbers are kept as they are.
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// Landlock is missing or disabled on this kernel (ABI 0).
        package static let landlockUnavailable = Code(rawValue: 1)
        /// Landlock is there, but older than ``Landlock/requiredABI``.
        package static let landlockTooOld = Code(rawValue: 2)
        /// The bundle identifier cannot name a container folder.
        package static let invalidBundleIdentifier = Code(rawValue: 3)
        /// The container folder (or its parent) could not be found or created.
        package static let containerUnavailable = Code(rawValue: 4)
        /// A rule of the policy would let the app reach a forbidden path (the store).
        package static let storeNotIsolated = Code(rawValue: 5)
        /// The program was not found, or is not an executable file.
        package static let programNotFound = Code(rawValue: 6)
        /// A step of the sandboxed launch failed; the program did not run.
        package static let launchFailed = Code(rawValue: 7)
        /// Waiting for the sandboxed process failed.
        package static let waitFailed = Code(rawValue: 8)

        /// The code's name, for logs and test failures.
        package var description: String {
            switch self {
            case .landlockUnavailable: "landlockUnavailable"
            case .landlockTooOld: "landlockTooOld"
            case .invalidBundleIdentifier: "invalidBundleIdentifier"
            case .containerUnavailable: "containerUnavailable"
            case .storeNotIsolated: "storeNotIsolated"
            case .programNotFound: "programNotFound"
            case .launchFailed: "launchFailed"
            case .waitFailed: "waitFailed"
            default: "SandboxError.Code(\(rawValue))"
            }
        }

        /// Lets `catch SandboxError.Code.storeNotIsolated` match a ``SandboxError`` of that code.
        package static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SandboxError)?.code == code
        }
    }

    /// The kind of failure.
    package let code: Code
    /// What is wrong and what to do, in one or two sentences.
    package let message: String
    /// The file or folder involved, when there is one.
    package let path: String?
    /// The C error (errno), when a system call failed.
    package let errno: Int32?

    /// Makes an error; `message` must say what is wrong and what to do.
    package init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// The message.
    package var description: String { message }
}
