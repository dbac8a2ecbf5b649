import Foundation
import ICalKit

/// An app's connection to the broker: the socket `ical run` handed it at launch (its number
/// in ``BrokerWire/descriptorVariable``), one per process, shared by every ``EKEventStore``
/// the app makes.
///
/// Calls may come from any thread; a reader thread matches answers to calls and passes the
/// broker's notices (the store or the app's access changed) to the stores. When the broker
/// is gone every call fails and the app has no access, as an app whose store cannot be
/// opened.
package final class BrokerClient: @unchecked Sendable {
    /// The process's connection, when `ical run` started it with one (nil otherwise).
    package static let shared: BrokerClient? = {
        guard let text = ProcessInfo.processInfo.environment[BrokerWire.descriptorVariable],
              let descriptor = Int32(text), descriptor > 2, fcntl(descriptor, F_GETFD) >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)   // not for the app's own children
        return BrokerClient(channel: FrameChannel(descriptor: descriptor))
    }()

    private let channel: FrameChannel
    private let condition = NSCondition()
    private var nextIdentifier: UInt64 = 1
    private var replies: [UInt64: BrokerReply] = [:]
    private var broken: String?
    private let notices = DispatchQueue(label: "org.openeventkit.broker-notices")
    private var observers: [WeakStore] = []
    /// The levels as the broker last gave them (the broker checks every call again).
    private var levels: [EKEntityType: AccessLevel] = [:]

    private struct WeakStore { weak var store: EKEventStore? }

    /// A client over a connected socket; sends the hello at once.
    package init(channel: FrameChannel) {
        self.channel = channel
        Thread.detachNewThread { [self] in readReplies() }
        if case .failure(let failure)? = try? call(.hello(version: BrokerWire.version)) {
            condition.withLock { broken = failure.message }
        }
    }

    /// Closes the connection: every call fails from then on.
    package func close() { channel.close() }

    // MARK: Calls

    /// Sends a call and waits for its answer: at most ``BrokerWire/replyTimeout`` seconds
    /// unless `waitsForPerson` (a prompt or a UI helper, which waits for the user).
    package func call(_ call: BrokerCall, waitsForPerson: Bool = false) throws(StoreError) -> BrokerReply {
        let identifier: UInt64 = condition.withLock {
            defer { nextIdentifier += 1 }
            return nextIdentifier
        }
        let payload: Data
        do {
            payload = try JSONEncoder().encode(BrokerRequest(id: identifier, call: call))
        } catch {
            throw StoreError(.io, "cannot encode a call to the broker: \(error)")
        }
        if let broken = condition.withLock({ broken }) { throw Self.gone(broken) }
        do {
            try channel.send(payload)
        } catch {
            throw Self.gone("\(error)")
        }
        let deadline = waitsForPerson ? nil : Deadline(seconds: BrokerWire.replyTimeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let reply = replies.removeValue(forKey: identifier) { return reply }
            if let broken { throw Self.gone(broken) }
            if let deadline {
                guard !deadline.hasPassed else {
                    throw StoreError(.io, "the broker did not answer within \(Deadline.describe(deadline.budget))")
                }
                _ = condition.wait(until: Date(timeIntervalSinceNow: max(0.001, deadline.remaining)))
            } else {
                condition.wait()
            }
        }
    }

    private static func gone(_ why: String) -> StoreError {
        StoreError(.io, "the calendar broker is not reachable (\(why)); the app has no access to calendars until it is started again with ical run")
    }

    private func readReplies() {
        while true {
            let frame: Data?
            do {
                frame = try channel.receive()
            } catch {
                finish("\(error)")
                return
            }
            guard let frame else { finish("the broker closed the connection"); return }
            guard let response = try? JSONDecoder().decode(BrokerResponse.self, from: frame) else {
                finish("the broker sent a message that is not the protocol's")
                return
            }
            if response.id == 0 {
                notice(response.reply)
            } else {
                condition.withLock {
                    replies[response.id] = response.reply
                    condition.broadcast()
                }
            }
        }
    }

    private func finish(_ why: String) {
        condition.withLock {
            if broken == nil { broken = why }
            levels = [:]
            condition.broadcast()
        }
        notice(.accessChanged)
    }

    // MARK: Notices

    /// Lets `store` hear the broker's notices (as ``Foundation/NSNotification/Name/EKEventStoreChanged``).
    func observe(_ store: EKEventStore) {
        condition.withLock {
            observers.removeAll { $0.store == nil }
            observers.append(WeakStore(store: store))
        }
    }

    /// Counts the broker's notices: what a store read before a later notice may be stale.
    package var epoch: UInt64 { condition.withLock { noticeCount } }
    private var noticeCount: UInt64 = 0

    private func notice(_ reply: BrokerReply) {
        condition.withLock {
            noticeCount += 1
            if case .accessChanged = reply { levels = [:] }
        }
        let stores = condition.withLock { observers.compactMap(\.store) }
        notices.async {
            for store in stores {
                switch reply {
                case .storeChanged: store.checkForExternalChanges(certain: true)
                case .accessChanged: store.accessDidChange()
                default: break
                }
            }
        }
    }

    // MARK: Access

    /// The app's status for `entityType`; `restricted` when the broker cannot be asked.
    package func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus {
        guard case .status(let raw)? = try? call(.status(entityType: Int(entityType.rawValue))),
              let status = EKAuthorizationStatus(rawValue: raw) else { return .restricted }
        return status
    }

    /// The level the broker enforces for `entityType` (remembered until a notice says it changed).
    package func accessLevel(for entityType: EKEntityType) -> AccessLevel {
        if let known = condition.withLock({ levels[entityType] }) { return known }
        guard case .level(let raw)? = try? call(.level(entityType: Int(entityType.rawValue))),
              let level = AccessLevel(rawValue: raw) else { return .none }
        condition.withLock { levels[entityType] = level }
        return level
    }

    /// A fetch under write-only access (the upgrade prompt may show, on `ical run`'s terminal).
    package func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel {
        guard case .level(let raw)? = try? call(.fetchUnderWriteOnly(entityType: Int(entityType.rawValue)), waitsForPerson: true),
              let level = AccessLevel(rawValue: raw) else { return .none }
        condition.withLock { levels[entityType] = level }
        return level
    }

    /// A request call, answered by the broker (which prompts on `ical run`'s terminal).
    package func respond(to request: AccessController.Request) -> (granted: Bool, error: AccessError?) {
        let wire: BrokerAccessRequest = switch request {
        case .fullAccessToEvents: .fullAccessToEvents
        case .writeOnlyAccessToEvents: .writeOnlyAccessToEvents
        case .fullAccessToReminders: .fullAccessToReminders
        case .legacy(.event): .legacyEvents
        case .legacy: .legacyReminders
        }
        defer { condition.withLock { levels = [:] } }
        do {
            switch try call(.request(wire), waitsForPerson: true) {
            case .granted(let granted, let failure):
                return (granted, failure.map { AccessError(AccessError.Code(rawValue: $0.code), $0.message, key: $0.key, remedy: $0.remedy) })
            case .failure(let failure):
                return (false, AccessError(.io, failure.message))
            default:
                return (false, AccessError(.io, "the broker answered the request with something else"))
            }
        } catch {
            return (false, AccessError(.io, error.message))
        }
    }
}

/// The access check of a store in a sandboxed app: the broker's answers. (The broker checks
/// every call again; this only spares the app calls that would be refused.)
package struct BrokerAuthority: AccessAuthority {
    let client: BrokerClient
    package init(client: BrokerClient) { self.client = client }
    package func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus { client.authorizationStatus(for: entityType) }
    package func accessLevel(for entityType: EKEntityType) -> AccessLevel { client.accessLevel(for: entityType) }
    package func fetchAttemptedUnderWriteOnly(_ entityType: EKEntityType) -> AccessLevel { client.fetchAttemptedUnderWriteOnly(entityType) }
}
