import Foundation

/// EventKit's authorization API, answered by the store's ``AccessController`` (the app's
/// manifest, the user's recorded decisions, the system prompt). See the article "Access
/// levels and the permission manifest".
extension EKEventStore {
    /// The running app's status for an entity type, without a store instance: read from the
    /// default store's decisions for the app's manifest. `restricted` when the manifest or the
    /// decisions cannot be read.
    public class func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus {
        if let client = BrokerClient.shared { return client.authorizationStatus(for: entityType) }
        return AccessController.authorizationStatus(for: entityType)
    }

    private func request(_ request: AccessController.Request, completion: @escaping EKEventStoreRequestAccessCompletionHandler) {
        if let controller = authority as? AccessController {
            controller.request(request, completion: completion)
        } else if let broker = authority as? BrokerAuthority {
            DispatchQueue.global().async {
                let (granted, error) = broker.client.respond(to: request)
                completion(granted, error)
            }
        } else {
            let granted = authority.accessLevel(for: request.entityType) != .none
            DispatchQueue.global().async { completion(granted, nil) }
        }
    }

    private func request(_ request: AccessController.Request) async throws -> Bool {
        if let controller = authority as? AccessController { return try await controller.request(request) }
        if let broker = authority as? BrokerAuthority {
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    let (granted, error) = broker.client.respond(to: request)
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: granted) }
                }
            }
        }
        return authority.accessLevel(for: request.entityType) != .none
    }

    /// Asks for read and write access to events. The system prompt appears only when the
    /// user has not decided; the completion runs on another queue.
    public func requestFullAccessToEvents(completion: @escaping EKEventStoreRequestAccessCompletionHandler) {
        request(.fullAccessToEvents, completion: completion)
    }

    /// Asks for read and write access to events.
    public func requestFullAccessToEvents() async throws -> Bool {
        try await request(.fullAccessToEvents)
    }

    /// Asks for write-only access to events (create only, no reading).
    public func requestWriteOnlyAccessToEvents(completion: @escaping EKEventStoreRequestAccessCompletionHandler) {
        request(.writeOnlyAccessToEvents, completion: completion)
    }

    /// Asks for write-only access to events.
    public func requestWriteOnlyAccessToEvents() async throws -> Bool {
        try await request(.writeOnlyAccessToEvents)
    }

    /// Asks for full access to reminders (there is no write-only level for reminders).
    public func requestFullAccessToReminders(completion: @escaping EKEventStoreRequestAccessCompletionHandler) {
        request(.fullAccessToReminders, completion: completion)
    }

    /// Asks for full access to reminders.
    public func requestFullAccessToReminders() async throws -> Bool {
        try await request(.fullAccessToReminders)
    }

    /// Deprecated: the single-level request. An app built for the current SDK gets an error
    /// without a prompt; an app whose manifest says it was built for an older SDK is asked for
    /// write-only access (TN3153).
    @available(*, deprecated, message: "Use requestFullAccessToEvents, requestWriteOnlyAccessToEvents or requestFullAccessToReminders")
    public func requestAccess(to entityType: EKEntityType, completion: @escaping EKEventStoreRequestAccessCompletionHandler) {
        request(.legacy(entityType), completion: completion)
    }

    /// Deprecated: the single-level request.
    @available(*, deprecated, message: "Use requestFullAccessToEvents, requestWriteOnlyAccessToEvents or requestFullAccessToReminders")
    public func requestAccess(to entityType: EKEntityType) async throws -> Bool {
        try await request(.legacy(entityType))
    }
}
