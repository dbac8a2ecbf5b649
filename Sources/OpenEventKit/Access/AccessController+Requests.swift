import Dispatch

/// The request calls in the two shapes ``EKEventStore`` forwards: a completion handler, run
/// on an arbitrary queue (never the caller's thread, since the prompt waits for the user), and
/// `async throws`. The async forms return the granted flag and throw the error the completion
/// would have been given.
extension AccessController {
    /// The completion handler shape of every request (`EKEventStoreRequestAccessCompletionHandler`).
    package typealias Completion = @Sendable (Bool, (any Error)?) -> Void

    private static let requestQueue = DispatchQueue(label: "org.openeventkit.access-requests", attributes: .concurrent)

    /// Answers `request` on another queue and calls `completion` there.
    package func request(_ request: Request, completion: @escaping Completion) {
        Self.requestQueue.async {
            let (granted, error) = self.respond(to: request)
            completion(granted, error)
        }
    }

    /// Answers `request` without blocking the caller's thread.
    package func request(_ request: Request) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            self.request(request) { granted, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: granted) }
            }
        }
    }

    /// `requestFullAccessToEvents(completion:)`.
    package func requestFullAccessToEvents(completion: @escaping Completion) { request(.fullAccessToEvents, completion: completion) }
    /// `requestFullAccessToEvents() async throws -> Bool`.
    package func requestFullAccessToEvents() async throws -> Bool { try await request(.fullAccessToEvents) }
    /// `requestWriteOnlyAccessToEvents(completion:)`.
    package func requestWriteOnlyAccessToEvents(completion: @escaping Completion) { request(.writeOnlyAccessToEvents, completion: completion) }
    /// `requestWriteOnlyAccessToEvents() async throws -> Bool`.
    package func requestWriteOnlyAccessToEvents() async throws -> Bool { try await request(.writeOnlyAccessToEvents) }
    /// `requestFullAccessToReminders(completion:)`.
    package func requestFullAccessToReminders(completion: @escaping Completion) { request(.fullAccessToReminders, completion: completion) }
    /// `requestFullAccessToReminders() async throws -> Bool`.
    package func requestFullAccessToReminders() async throws -> Bool { try await request(.fullAccessToReminders) }
    /// The deprecated `requestAccess(to:completion:)`.
    package func requestAccess(to entityType: EKEntityType, completion: @escaping Completion) { request(.legacy(entityType), completion: completion) }
    /// The deprecated `requestAccess(to:) async throws -> Bool`.
    package func requestAccess(to entityType: EKEntityType) async throws -> Bool { try await request(.legacy(entityType)) }
}
