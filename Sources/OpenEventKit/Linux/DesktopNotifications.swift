#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
internal import CDBus
import ICalKit

/// A client of the desktop's notification server (`org.freedesktop.Notifications`, the
/// Desktop Notifications Specification 1.2) over the D-Bus session bus, for the alarms that
/// `ical alarms watch` shows.
///
/// It owns one private connection to the session bus, made with libdbus-1, which is loaded
/// with `dlopen` when the first instance is made (a process that never notifies does not
/// map it). Method calls block for at most the timeout given to ``init(address:timeout:)``;
/// the server's signals (a click on an action, a notification closed) are read without
/// blocking by ``events()``, typically when ``fileDescriptor`` polls readable:
///
/// ```swift
/// let notifications = try DesktopNotifications()
/// let id = try notifications.notify(appName: "ical", summary: "Piano lesson", body: "in 10 minutes",
///                                   actions: [("snooze", "Snooze"), ("dismiss", "Dismiss")],
///                                   hints: DesktopNotifications.Hints(urgency: .normal))
/// while true {
///     for event in notifications.events() { … }   // before polling: a call may have read some
///     guard notifications.isConnected else { break }
///     var descriptor = pollfd(fd: notifications.fileDescriptor, events: Int16(POLLIN), revents: 0)
///     _ = poll(&descriptor, 1, -1)
/// }
/// ```
///
/// Text is untrusted (it comes from calendars): the summary is cut to
/// ``summaryLimit`` and the body to ``bodyLimit`` Unicode scalars, other strings to
/// ``stringLimit``; control characters (but the body's line feeds) and Unicode noncharacters
/// are removed; and when the server advertises `body-markup`, `&`, `<` and `>` of the body
/// are escaped, so the body always shows as written. libdbus aborts the process on a string
/// that is not valid UTF-8 or holds a NUL; nothing this type passes can be either.
///
/// A signal is reported only when it comes from the connection that created the
/// notification (the unique bus name that owned `org.freedesktop.Notifications` when
/// ``notify(appName:replacing:icon:summary:body:actions:hints:expireTimeout:)`` was called,
/// which the call was sent to), and only for a notification this instance created and that
/// is not closed yet: another client on the bus cannot fake a click.
///
/// - Important: An instance is not thread-safe and not `Sendable`: one thread (or one
///   isolation domain) owns it, makes its calls and polls its descriptor.
package final class DesktopNotifications {
    /// What the notification server reported about a notification this instance created.
    package enum Event: Equatable, Sendable {
        /// The user chose the action with the key `action` (the `ActionInvoked` signal).
        case actionInvoked(id: UInt32, action: String)
        /// The notification went away (the `NotificationClosed` signal): `reason` is 1 when
        /// it expired, 2 when the user dismissed it, 3 when ``DesktopNotifications/close(_:)``
        /// closed it and 4 when undefined.
        case closed(id: UInt32, reason: UInt32)
    }

    /// Who the notification server is (`GetServerInformation`).
    package struct ServerInformation: Equatable, Sendable {
        /// The server's product name, such as `dunst`.
        package var name: String
        /// The vendor's name.
        package var vendor: String
        /// The server's version.
        package var version: String
        /// The version of the specification the server complies with, such as `1.2`.
        package var specVersion: String
    }

    /// A notification's hints (the `a{sv}` argument of `Notify`): the standard ones the alarms
    /// use and vendor hints, whose names start with `x-` (by convention
    /// `x-openeventkit-…`) and whose values are strings.
    package struct Hints: Equatable, Sendable {
        /// How urgent a notification is (the `urgency` hint, a byte).
        package enum Urgency: UInt8, Sendable {
            /// Low urgency (0).
            case low = 0
            /// Normal urgency (1).
            case normal = 1
            /// Critical (2): servers usually keep it on screen until the user acts.
            case critical = 2
        }

        /// The `urgency` hint; none when nil.
        package var urgency: Urgency?
        /// The `category` hint, such as `x-openeventkit.alarm`.
        package var category: String?
        /// The `desktop-entry` hint: the name of the sender's desktop file, without `.desktop`.
        package var desktopEntry: String?
        /// The `resident` hint: true asks the server to keep the notification when an action is
        /// invoked.
        package var resident: Bool?
        /// The `transient` hint: true asks the server not to keep it in its history.
        package var transient: Bool?
        /// Vendor hints: names starting with `x-` (others are ignored), string values.
        package var vendor: [String: String]

        /// Hints with the given values; nil leaves a hint out.
        package init(urgency: Urgency? = nil, category: String? = nil, desktopEntry: String? = nil,
                     resident: Bool? = nil, transient: Bool? = nil, vendor: [String: String] = [:]) {
            self.urgency = urgency
            self.category = category
            self.desktopEntry = desktopEntry
            self.resident = resident
            self.transient = transient
            self.vendor = vendor
        }
    }

    /// The most Unicode scalars of a summary; a longer one is cut and ends with `…`.
    package static let summaryLimit = 200
    /// The most Unicode scalars of a body (before markup is escaped); a longer one is cut and
    /// ends with `…`.
    package static let bodyLimit = 1000
    /// The most Unicode scalars of the other strings (application name, icon, action keys and
    /// labels, hints).
    package static let stringLimit = 200

    /// The notification service's well-known name and interface.
    private static let service = "org.freedesktop.Notifications"
    /// The notification service's object.
    private static let objectPath = "/org/freedesktop/Notifications"
    /// The bus's own name and interface (`Hello`, `AddMatch`, `GetNameOwner`).
    private static let bus = "org.freedesktop.DBus"
    /// The bus's own object.
    private static let busPath = "/org/freedesktop/DBus"

    /// libdbus-1's functions.
    private let library: UnsafePointer<CDBus_library>
    /// The private connection (a `DBusConnection *`), closed and released in `deinit`.
    private let connection: OpaquePointer
    /// The longest a method call waits for its reply.
    private let timeoutMilliseconds: Int32
    /// The descriptor of the connection's socket: poll it for readability, then call
    /// ``events()``. It is the connection's; never read, write or close it. Once
    /// ``isConnected`` is false it is closed, and its number may be reused.
    package let fileDescriptor: Int32
    /// This connection's unique name on the bus (`:1.42`), from `Hello`.
    package private(set) var uniqueName: String
    /// The notifications created and not closed yet: id → the unique name of the server
    /// that created it, the only sender whose signals about it are believed.
    private var live: [UInt32: String] = [:]
    /// Signals read (by a method call or by ``events()``) and not returned yet.
    private var pending: [Event] = []
    /// Whether the server with this unique name advertises `body-markup`.
    private var markup: (owner: String, bodyMarkup: Bool)?
    /// Whether the bus went away (libdbus's `Disconnected` signal, or a call that said so).
    private var disconnected = false

    /// Connects to the session bus and checks that a notification server is there.
    ///
    /// The bus is `address` when given, else `$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` when that socket exists (systemd's user bus). The connection is
    /// private (not libdbus's shared one), registered with `Hello`, does not end the process
    /// when the bus goes away, and subscribes to the server's `ActionInvoked` and
    /// `NotificationClosed` signals. A server that D-Bus activation can start counts as there.
    ///
    /// - Parameters:
    ///   - address: A D-Bus address, such as `unix:path=/run/user/1000/bus`.
    ///   - timeout: The longest any method call waits for its reply (at least a millisecond).
    /// - Throws: ``DesktopNotificationsError`` with ``DesktopNotificationsError/Code/libraryUnavailable``,
    ///   ``DesktopNotificationsError/Code/noSessionBus`` or
    ///   ``DesktopNotificationsError/Code/noNotificationServer``, whose message says what to do.
    package init(address: String? = nil, timeout: Swift.Duration = .seconds(5)) throws(DesktopNotificationsError) {
        let library: UnsafePointer<CDBus_library>
        switch dbusLibrary {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            throw DesktopNotificationsError(
                .libraryUnavailable,
                "libdbus-1 could not be loaded (\(failure.reason)); install it: apt-get install libdbus-1-3")
        }
        guard let address = address ?? Self.sessionBusAddress() else {
            throw DesktopNotificationsError(
                .noSessionBus,
                "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set; run inside a desktop session "
                    + "(or under dbus-run-session) with a notification server such as dunst")
        }
        let clean = Self.sanitized(address, limit: 4096, newlines: false)
        guard !clean.isEmpty, clean == address else {
            throw DesktopNotificationsError(.noSessionBus, "the D-Bus session bus address is not a valid address")
        }
        var error = CDBus_no_error(library)
        guard let connection = library.pointee.connection_open_private(clean, &error) else {
            let reason = Self.message(of: &error, library)
            throw DesktopNotificationsError(
                .noSessionBus,
                "cannot connect to the D-Bus session bus at \(clean): \(reason); is the session bus running "
                    + "(DBUS_SESSION_BUS_ADDRESS)?")
        }
        library.pointee.connection_set_exit_on_disconnect(connection, 0)
        var descriptor: Int32 = -1
        _ = library.pointee.connection_get_unix_fd(connection, &descriptor)
        let (seconds, attoseconds) = timeout.components
        let milliseconds = max(1, min(Int64(Int32.max), seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000))
        self.library = library
        self.connection = connection
        self.fileDescriptor = descriptor
        self.timeoutMilliseconds = Int32(milliseconds)
        self.uniqueName = ""
        do throws(DesktopNotificationsError) {
            let hello = try call(Self.bus, Self.busPath, Self.bus, "Hello")
            guard case .string(let name)? = hello.arguments.first else {
                throw DesktopNotificationsError(.noSessionBus, "the D-Bus session bus did not answer Hello with a name")
            }
            uniqueName = name
            for member in ["ActionInvoked", "NotificationClosed"] {
                let rule = "type='signal',interface='\(Self.service)',path='\(Self.objectPath)',member='\(member)'"
                _ = try call(Self.bus, Self.busPath, Self.bus, "AddMatch") {
                    (message) throws(DesktopNotificationsError) in try message.append(rule)
                }
            }
            _ = try serverOwner()
        } catch let failure {
            if uniqueName.isEmpty {
                throw DesktopNotificationsError(
                    .noSessionBus,
                    "the D-Bus session bus at \(clean) did not register this client: \(failure.message)",
                    dbusName: failure.dbusName)
            }
            throw failure
        }
    }

    /// Closes the connection.
    deinit {
        library.pointee.connection_close(connection)
        library.pointee.connection_unref(connection)
    }

    /// Whether the connection to the bus is still up. Once false (the bus went away), every
    /// call throws ``DesktopNotificationsError/Code/disconnected`` and ``fileDescriptor`` must no
    /// longer be polled: make a new instance.
    package var isConnected: Bool {
        !disconnected && library.pointee.connection_get_is_connected(connection) != 0
    }

    /// The ids of the notifications this instance created that are not known to be closed.
    package var liveNotifications: Set<UInt32> { Set(live.keys) }

    /// Who the notification server is.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.Notifications.GetServerInformation`.
    package func serverInformation() throws(DesktopNotificationsError) -> ServerInformation {
        let reply = try call(Self.service, Self.objectPath, Self.service, "GetServerInformation")
        let strings = reply.arguments.compactMap { if case .string(let text) = $0 { text } else { nil } }
        guard strings.count == 4 else {
            throw DesktopNotificationsError(.callFailed, "the notification server's GetServerInformation answer is malformed")
        }
        return ServerInformation(name: strings[0], vendor: strings[1], version: strings[2], specVersion: strings[3])
    }

    /// The optional features the notification server supports, such as `actions`, `body` and
    /// `body-markup`.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.Notifications.GetCapabilities`.
    package func capabilities() throws(DesktopNotificationsError) -> [String] {
        try capabilities(of: Self.service)
    }

    /// Shows a notification, or replaces one, and returns its id.
    ///
    /// Text is made safe first (see ``DesktopNotifications``): `summary` is cut to
    /// ``summaryLimit`` and `body` to ``bodyLimit`` Unicode scalars, control characters go (the
    /// body keeps its line feeds), and the body's `&`, `<` and `>` are escaped when the server
    /// reads markup.
    ///
    /// - Parameters:
    ///   - appName: The application's name, such as `ical`.
    ///   - replacing: The id of a notification of this instance to replace; 0 for a new one.
    ///   - icon: An icon name or `file://` URI; empty for none.
    ///   - summary: The notification's one-line title.
    ///   - body: Its text.
    ///   - actions: Its buttons: a key, reported by ``Event/actionInvoked(id:action:)``, and
    ///     the label shown. The key `default` is the click on the notification itself.
    ///   - hints: Its hints.
    ///   - expireTimeout: Milliseconds on screen; -1 for the server's default, 0 for never.
    /// - Returns: The notification's id, from the server.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.Notifications.Notify`.
    package func notify(appName: String, replacing: UInt32 = 0, icon: String = "", summary: String, body: String,
                        actions: [(key: String, label: String)], hints: Hints,
                        expireTimeout: Int32 = -1) throws(DesktopNotificationsError) -> UInt32 {
        let owner = try serverOwner()
        if markup?.owner != owner {
            markup = (owner, try capabilities(of: owner).contains("body-markup"))
        }
        var text = Self.sanitized(body, limit: Self.bodyLimit, newlines: true)
        if markup?.bodyMarkup == true { text = Self.escapingMarkup(text) }
        let limit = Self.stringLimit
        let reply = try call(owner, Self.objectPath, Self.service, "Notify") { (message) throws(DesktopNotificationsError) in
            try message.append(Self.sanitized(appName, limit: limit, newlines: false))
            try message.append(uint32: replacing)
            try message.append(Self.sanitized(icon, limit: limit, newlines: false))
            try message.append(Self.sanitized(summary, limit: Self.summaryLimit, newlines: false))
            try message.append(text)
            try message.appendArray("s") { (array) throws(DesktopNotificationsError) in
                for action in actions {
                    try array.append(Self.sanitized(action.key, limit: limit, newlines: false))
                    try array.append(Self.sanitized(action.label, limit: limit, newlines: false))
                }
            }
            try message.appendArray("{sv}") { (array) throws(DesktopNotificationsError) in
                for (name, value) in Self.entries(of: hints) {
                    try array.appendEntry(name, value)
                }
            }
            try message.append(int32: expireTimeout)
        }
        guard case .uint32(let id)? = reply.arguments.first else {
            throw DesktopNotificationsError(.callFailed, "the notification server's Notify answer has no id")
        }
        live[id] = reply.sender ?? owner
        return id
    }

    /// Closes a notification; the server then reports ``Event/closed(id:reason:)`` with reason 3.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.Notifications.CloseNotification`.
    package func close(_ id: UInt32) throws(DesktopNotificationsError) {
        _ = try call(live[id] ?? Self.service, Self.objectPath, Self.service, "CloseNotification") {
            (message) throws(DesktopNotificationsError) in try message.append(uint32: id)
        }
    }

    /// The server's signals about this instance's notifications received since the last call,
    /// oldest first; never blocks.
    ///
    /// It reads what the socket has, so call it when ``fileDescriptor`` polls readable, and
    /// also before each poll: a method call may have read signals already. Signals from any
    /// other sender, or about a notification this instance did not create or saw closed, are
    /// dropped; a notification is forgotten once it is closed.
    package func events() -> [Event] {
        if isConnected { _ = library.pointee.connection_read_write(connection, 0) }
        drain()
        defer { pending = [] }
        return pending
    }

    // MARK: - Calls

    /// The unique name of the connection that owns `org.freedesktop.Notifications`, starting
    /// the server by D-Bus activation when none does and one can be.
    private func serverOwner() throws(DesktopNotificationsError) -> String {
        do throws(DesktopNotificationsError) {
            return try nameOwner()
        } catch let failure where failure.dbusName == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            let started = try? call(Self.bus, Self.busPath, Self.bus, "StartServiceByName") {
                (message) throws(DesktopNotificationsError) in
                try message.append(Self.service)
                try message.append(uint32: 0)
            }
            if started != nil, let owner = try? nameOwner() { return owner }
            throw DesktopNotificationsError(
                .noNotificationServer,
                "no notification server on the D-Bus session bus owns \(Self.service); start one "
                    + "(dunst, mako, xfce4-notifyd, or the desktop's own)",
                dbusName: failure.dbusName)
        }
    }

    /// `GetNameOwner(org.freedesktop.Notifications)`.
    private func nameOwner() throws(DesktopNotificationsError) -> String {
        let reply = try call(Self.bus, Self.busPath, Self.bus, "GetNameOwner") {
            (message) throws(DesktopNotificationsError) in try message.append(Self.service)
        }
        guard case .string(let owner)? = reply.arguments.first, !owner.isEmpty else {
            throw DesktopNotificationsError(.callFailed, "the D-Bus session bus's GetNameOwner answer is malformed")
        }
        return owner
    }

    /// `GetCapabilities`, sent to `destination`.
    private func capabilities(of destination: String) throws(DesktopNotificationsError) -> [String] {
        let reply = try call(destination, Self.objectPath, Self.service, "GetCapabilities")
        guard case .array(let values)? = reply.arguments.first else {
            throw DesktopNotificationsError(.callFailed, "the notification server's GetCapabilities answer is malformed")
        }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// A method's reply: its sender and its arguments.
    private struct Reply {
        var sender: String?
        var arguments: [Value]
    }

    /// An argument of a reply or a signal, as far as this client reads them.
    private enum Value {
        case string(String)
        case uint32(UInt32)
        case int32(Int32)
        case byte(UInt8)
        case boolean(Bool)
        case array([Value])
        case structure([Value])
        case other
    }

    /// Calls `method` and waits for its reply, at most the timeout; `arguments` appends the
    /// arguments. Signals read meanwhile are kept for ``events()``.
    ///
    /// The corresponding libdbus function is `dbus_connection_send_with_reply_and_block`.
    private func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String,
        arguments: (inout MessageWriter) throws(DesktopNotificationsError) -> Void = { _ throws(DesktopNotificationsError) in }
    ) throws(DesktopNotificationsError) -> Reply {
        guard isConnected else {
            disconnected = true
            throw DesktopNotificationsError(.disconnected, "the D-Bus session bus connection is closed")
        }
        guard let message = library.pointee.message_new_method_call(destination, path, interface, method) else {
            throw DesktopNotificationsError(.callFailed, "\(method): out of memory")
        }
        defer { library.pointee.message_unref(message) }
        let iterator = UnsafeMutablePointer<CDBus_iterator>.allocate(capacity: 1)
        defer { iterator.deallocate() }
        library.pointee.iter_init_append(message, iterator)
        var writer = MessageWriter(library: library, iterator: iterator)
        try arguments(&writer)
        var error = CDBus_no_error(library)
        let reply = library.pointee.connection_send_with_reply_and_block(connection, message, timeoutMilliseconds, &error)
        defer { drain() }
        guard let reply else {
            let name = error.name.map { String(cString: $0) }
            let text = Self.message(of: &error, library)
            let code: DesktopNotificationsError.Code
            switch name {
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
                 "org.freedesktop.DBus.Error.TimedOut":
                code = .timedOut
            case "org.freedesktop.DBus.Error.Disconnected":
                code = .disconnected
                disconnected = true
            case "org.freedesktop.DBus.Error.ServiceUnknown" where destination != Self.bus:
                code = .noNotificationServer
            default:
                code = library.pointee.connection_get_is_connected(connection) == 0 ? .disconnected : .callFailed
            }
            throw DesktopNotificationsError(code, "\(interface).\(method) failed: \(text)", dbusName: name)
        }
        defer { library.pointee.message_unref(reply) }
        return Reply(sender: library.pointee.message_get_sender(reply).map { String(cString: $0) },
                     arguments: read(reply))
    }

    /// Handles every message libdbus has queued: signals become ``pending`` events.
    private func drain() {
        while let message = library.pointee.connection_pop_message(connection) {
            handle(message)
            library.pointee.message_unref(message)
        }
        if library.pointee.connection_get_is_connected(connection) == 0 { disconnected = true }
    }

    /// Keeps a signal of the notification server about one of our notifications, from the
    /// connection that created it.
    private func handle(_ message: OpaquePointer) {
        guard library.pointee.message_get_type(message) == Int32(CDBus_message_signal) else { return }
        let text = { (field: UnsafePointer<CChar>?) in field.map { String(cString: $0) } }
        let interface = text(library.pointee.message_get_interface(message))
        let member = text(library.pointee.message_get_member(message))
        if interface == "org.freedesktop.DBus.Local", member == "Disconnected" {
            disconnected = true
            return
        }
        guard interface == Self.service, text(library.pointee.message_get_path(message)) == Self.objectPath,
              let sender = text(library.pointee.message_get_sender(message)) else { return }
        let arguments = read(message)
        switch (member, arguments.first, arguments.dropFirst().first) {
        case ("ActionInvoked", .uint32(let id)?, .string(let action)?):
            guard live[id] == sender else { return }
            pending.append(.actionInvoked(id: id, action: action))
        case ("NotificationClosed", .uint32(let id)?, .uint32(let reason)?):
            guard live[id] == sender else { return }
            live[id] = nil
            pending.append(.closed(id: id, reason: reason))
        default:
            return
        }
    }

    /// A message's arguments.
    private func read(_ message: OpaquePointer) -> [Value] {
        let iterator = UnsafeMutablePointer<CDBus_iterator>.allocate(capacity: 1)
        defer { iterator.deallocate() }
        guard library.pointee.iter_init(message, iterator) != 0 else { return [] }
        return read(iterator, depth: 0)
    }

    /// The values from `iterator` to the end of its container (nested containers deeper than
    /// 8 are not read).
    private func read(_ iterator: UnsafeMutablePointer<CDBus_iterator>, depth: Int) -> [Value] {
        var values: [Value] = []
        repeat {
            let type = library.pointee.iter_get_arg_type(iterator)
            if type == Int32(CDBus_type_invalid) { break }
            values.append(value(iterator, type: type, depth: depth))
        } while library.pointee.iter_next(iterator) != 0
        return values
    }

    /// The value `iterator` is at, of D-Bus type `type`.
    private func value(_ iterator: UnsafeMutablePointer<CDBus_iterator>, type: Int32, depth: Int) -> Value {
        // dbus_message_iter_get_basic writes the value's own size (at most 8 bytes) at the
        // start of the buffer; a string is a pointer into the message.
        var basic: UInt64 = 0
        func load<T>(_: T.Type) -> T {
            withUnsafeMutableBytes(of: &basic) { bytes in
                library.pointee.iter_get_basic(iterator, bytes.baseAddress!)
                return bytes.load(as: T.self)
            }
        }
        switch UInt8(truncatingIfNeeded: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            return load(UnsafePointer<CChar>?.self).map { .string(String(cString: $0)) } ?? .other
        case UInt8(ascii: "u"): return .uint32(load(UInt32.self))
        case UInt8(ascii: "i"): return .int32(load(Int32.self))
        case UInt8(ascii: "y"): return .byte(load(UInt8.self))
        case UInt8(ascii: "b"): return .boolean(load(UInt32.self) != 0)
        case UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "e"), UInt8(ascii: "v"):
            guard depth < 8 else { return .other }
            let sub = UnsafeMutablePointer<CDBus_iterator>.allocate(capacity: 1)
            defer { sub.deallocate() }
            library.pointee.iter_recurse(iterator, sub)
            let contents = read(sub, depth: depth + 1)
            return type == Int32(CDBus_type_array) ? .array(contents) : .structure(contents)
        default:
            return .other
        }
    }

    // MARK: - Text

    /// The session bus's address from the environment: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` when it exists; nil when neither.
    private static func sessionBusAddress() -> String? {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
            return address
        }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            let path = runtime + "/bus"
            if access(path, F_OK) == 0 { return "unix:path=" + path }
        }
        return nil
    }

    /// `text` made safe for libdbus and the screen: without NUL, control characters (but line
    /// feeds when `newlines`; a tab becomes a space), surrogates or noncharacters, and at most
    /// `limit` Unicode scalars, the last one `…` when cut.
    package static func sanitized(_ text: String, limit: Int, newlines: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            var kept = scalar
            if value == 0x09 {
                kept = " "
            } else if value == 0x0A {
                if !newlines { kept = " " }
            } else if value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value)
                        || value & 0xFFFE == 0xFFFE {
                continue
            }
            if count == limit {
                scalars.removeLast()
                scalars.append("…")
                break
            }
            scalars.append(kept)
            count += 1
        }
        return String(scalars)
    }

    /// `text` with `&`, `<` and `>` written as entities, for a server that reads markup.
    package static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// The hints as `Notify` sends them, sorted by name, their strings made safe.
    private static func entries(of hints: Hints) -> [(String, HintValue)] {
        var entries: [(String, HintValue)] = []
        if let urgency = hints.urgency { entries.append(("urgency", .byte(urgency.rawValue))) }
        if let category = hints.category {
            entries.append(("category", .string(sanitized(category, limit: stringLimit, newlines: false))))
        }
        if let entry = hints.desktopEntry {
            entries.append(("desktop-entry", .string(sanitized(entry, limit: stringLimit, newlines: false))))
        }
        if let resident = hints.resident { entries.append(("resident", .boolean(resident))) }
        if let transient = hints.transient { entries.append(("transient", .boolean(transient))) }
        for (name, value) in hints.vendor where name.hasPrefix("x-") {
            let name = sanitized(name, limit: stringLimit, newlines: false)
            entries.append((name, .string(sanitized(value, limit: stringLimit, newlines: false))))
        }
        return entries.sorted { $0.0 < $1.0 }
    }

    /// The text of a set libdbus error, which is then freed.
    private static func message(of error: inout CDBus_error, _ library: UnsafePointer<CDBus_library>) -> String {
        let text = error.message.map { String(cString: $0) } ?? error.name.map { String(cString: $0) } ?? "unknown error"
        library.pointee.error_free(&error)
        return text
    }
}

/// A hint's value in a `Notify` call: a variant of type `y`, `s` or `b`.
private enum HintValue {
    case byte(UInt8)
    case string(String)
    case boolean(Bool)
}

/// Appends arguments to a message being built, through a libdbus iterator it does not own.
///
/// Every string is checked with `dbus_validate_utf8` before it reaches libdbus, which would
/// end the process on invalid UTF-8 (callers pass sanitized text, so this never fails).
private struct MessageWriter {
    let library: UnsafePointer<CDBus_library>
    let iterator: UnsafeMutablePointer<CDBus_iterator>

    /// Appends a string (`s`).
    func append(_ text: String) throws(DesktopNotificationsError) {
        let appended = text.withCString { pointer -> Bool in
            guard library.pointee.validate_utf8(pointer, nil) != 0 else { return false }
            var argument: UnsafePointer<CChar>? = pointer
            return library.pointee.iter_append_basic(iterator, Int32(CDBus_type_string), &argument) != 0
        }
        guard appended else {
            throw DesktopNotificationsError(.invalidArgument, "a string could not be added to a D-Bus message")
        }
    }

    /// Appends a 32-bit unsigned integer (`u`).
    func append(uint32 value: UInt32) throws(DesktopNotificationsError) {
        var value = value
        try check(library.pointee.iter_append_basic(iterator, Int32(CDBus_type_uint32), &value))
    }

    /// Appends a 32-bit signed integer (`i`).
    func append(int32 value: Int32) throws(DesktopNotificationsError) {
        var value = value
        try check(library.pointee.iter_append_basic(iterator, Int32(CDBus_type_int32), &value))
    }

    /// Appends an array whose elements have the signature `element`, filled by `body`.
    func appendArray(_ element: String,
                     _ body: (MessageWriter) throws(DesktopNotificationsError) -> Void) throws(DesktopNotificationsError) {
        try container(Int32(CDBus_type_array), element, body)
    }

    /// Appends a dictionary entry `{sv}` of an array of hints.
    func appendEntry(_ name: String, _ value: HintValue) throws(DesktopNotificationsError) {
        try container(Int32(CDBus_type_dict_entry), nil) { (entry) throws(DesktopNotificationsError) in
            try entry.append(name)
            switch value {
            case .byte(let byte):
                try entry.container(Int32(CDBus_type_variant), "y") { (variant) throws(DesktopNotificationsError) in
                    var byte = byte
                    try variant.check(library.pointee.iter_append_basic(variant.iterator, Int32(CDBus_type_byte), &byte))
                }
            case .string(let text):
                try entry.container(Int32(CDBus_type_variant), "s") { (variant) throws(DesktopNotificationsError) in
                    try variant.append(text)
                }
            case .boolean(let flag):
                try entry.container(Int32(CDBus_type_variant), "b") { (variant) throws(DesktopNotificationsError) in
                    var flag: CDBus_bool = flag ? 1 : 0
                    try variant.check(library.pointee.iter_append_basic(variant.iterator, Int32(CDBus_type_boolean), &flag))
                }
            }
        }
    }

    /// Opens a container of `type`, lets `body` fill it, and closes it (abandons it when
    /// `body` throws).
    private func container(_ type: Int32, _ signature: String?,
                           _ body: (MessageWriter) throws(DesktopNotificationsError) -> Void) throws(DesktopNotificationsError) {
        let sub = UnsafeMutablePointer<CDBus_iterator>.allocate(capacity: 1)
        sub.initialize(to: CDBus_iterator())
        defer { sub.deallocate() }
        let opened: CDBus_bool
        if let signature {
            opened = signature.withCString { library.pointee.iter_open_container(iterator, type, $0, sub) }
        } else {
            opened = library.pointee.iter_open_container(iterator, type, nil, sub)
        }
        try check(opened)
        do throws(DesktopNotificationsError) {
            try body(MessageWriter(library: library, iterator: sub))
        } catch {
            library.pointee.iter_abandon_container_if_open(iterator, sub)
            throw error
        }
        try check(library.pointee.iter_close_container(iterator, sub))
    }

    /// Throws when libdbus returned false (it only does when out of memory).
    private func check(_ result: CDBus_bool) throws(DesktopNotificationsError) {
        guard result != 0 else {
            throw DesktopNotificationsError(.callFailed, "a D-Bus message could not be built: out of memory")
        }
    }
}

/// libdbus-1, loaded by the first ``DesktopNotifications``, or why it cannot be. Loading is
/// done once (a global's initialiser runs exactly once).
private nonisolated(unsafe) let dbusLibrary: Result<UnsafePointer<CDBus_library>, DynamicLibrary.Failure> =
    DynamicLibrary.load { CDBus_load($0, $1, $2) }

/// Why a ``DesktopNotifications`` call failed: a code to match, and a message for people that
/// says what went wrong and, where it can, what to do.
package struct DesktopNotificationsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure it is. New codes may be added.
    package struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's name.
        package var rawValue: String
        /// A code with this name.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// libdbus-1 (libdbus-1.so.3) could not be loaded.
        package static let libraryUnavailable = Code(rawValue: "libraryUnavailable")
        /// There is no session bus, or it cannot be reached.
        package static let noSessionBus = Code(rawValue: "noSessionBus")
        /// No notification server owns `org.freedesktop.Notifications`, and none can be started.
        package static let noNotificationServer = Code(rawValue: "noNotificationServer")
        /// The connection to the bus was lost.
        package static let disconnected = Code(rawValue: "disconnected")
        /// A method call had no reply within the timeout.
        package static let timedOut = Code(rawValue: "timedOut")
        /// A method call failed (the server answered with an error).
        package static let callFailed = Code(rawValue: "callFailed")
        /// An argument could not be sent.
        package static let invalidArgument = Code(rawValue: "invalidArgument")
    }

    /// What kind of failure it is.
    package var code: Code
    /// What went wrong, for people.
    package var message: String
    /// The D-Bus error's name when the bus or the server answered with one, such as
    /// `org.freedesktop.DBus.Error.ServiceUnknown`.
    package var dbusName: String?

    /// An error with a code, a message and the D-Bus error name, if any.
    package init(_ code: Code, _ message: String, dbusName: String? = nil) {
        self.code = code
        self.message = message
        self.dbusName = dbusName
    }

    /// The message.
    package var description: String { message }
}
