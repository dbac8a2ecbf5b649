import CCurl
import Foundation
import ICalKit
import Synchronization

/// A problem talking to a server: what went wrong and the URL involved. Never carries a
/// password or an `Authorization` header.
public struct RemoteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: String, Sendable, Hashable {
        /// The server could not be reached, or the connection broke.
        case network
        /// The server answered with an HTTP status that the operation cannot use.
        case httpStatus
        /// 401 or 403: the user name or password is wrong, or the account may not do this.
        case unauthorized
        /// The response was larger than the limit.
        case tooLarge
        /// A plain `http://` URL to a host that is not this machine, without `--allow-insecure-http`.
        case insecure
        /// A redirect to another origin (scheme, host and port), which is not followed.
        case redirect
        /// The response is not the XML (or iCalendar) the protocol promises.
        case malformed
        /// The server forgot or rejected the sync token.
        case invalidSyncToken
        /// The URL, the account or the feed is not usable as given.
        case invalidArgument
        /// 412: someone else changed the item first.
        case preconditionFailed
        /// The server was too slow: it did not begin to answer in time, a transfer stalled
        /// below the minimum rate, or the exchange or the whole operation ran out of time.
        case timedOut
    }

    /// The kind of problem.
    public var code: Code
    /// What went wrong, for a person.
    public var message: String
    /// The URL involved, without credentials.
    public var url: String?
    /// The HTTP status, when a response came.
    public var status: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, url: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
    }

    public var description: String {
        var text = message
        if let status { text += " (HTTP \(status))" }
        if let url { text = "\(url): " + text }
        return text
    }
}

/// One HTTP request.
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: URL
    package var headers: [String: String] = [:]
    package var body: Data?
    /// A tighter bound on the response body than the funnel's own, for this request.
    package var responseLimit: Int?

    package init(_ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response, read whole (within the funnel's limit).
package struct HTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The headers, names in lower case.
    package var headers: [String: String]
    /// The body.
    package var body: Data
    /// The URL that answered (after same-origin redirects).
    package var url: URL

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The one way OpenEventKit talks to a server: libcurl's easy interface (the engine under
/// FoundationNetworking's `URLSession` on Linux, called directly: see "The HTTP client" in
/// the RemoteSources article for why), TLS verified against the system's certificate
/// store, with every rule of the network in one place:
///
/// - Credentials (HTTP Basic) are added here, and only to requests for the account's own
///   origin; they never appear in a URL, an error or a log.
/// - `http://` is refused unless the host is this machine (loopback) or the account allows
///   insecure HTTP explicitly; only the `http` and `https` protocols are ever spoken.
/// - Redirects are followed only within the same origin (and at most 5); the method, body
///   and headers go with them.
/// - A response larger than ``Limits/maximumResponseBytes`` is cut off and is an error, so a
///   hostile server cannot fill memory; request bodies are sent with `Content-Length`, never
///   chunked (Radicale refuses chunked bodies), and without `Expect: 100-continue`.
///
/// Requests run one at a time over one kept-alive connection (libcurl reconnects when the
/// server has closed it), and block the caller; callers never hold the store's lock while
/// they wait.
package final class HTTPFunnel: Sendable {
    /// Bounds on what one exchange may cost.
    package struct Limits: Sendable {
        /// The largest response body read, in bytes.
        package var maximumResponseBytes = 64 << 20
        /// The most response header lines read.
        package var maximumHeaderLines = 500
        /// Seconds the server may think before the first byte of its answer, once the
        /// request is sent: long, because a server may think for minutes (Radicale builds its
        /// cache of a large calendar on the first request after a start: over 4 minutes for
        /// 10,000 items on a busy two-core machine), and a sync that gives up then only
        /// starts over.
        package var responseTimeout: TimeInterval = 600
        /// Seconds over which a transfer that is moving (the request's body going out, or the
        /// answer coming in from its first byte on) must average ``minimumRate``: a server
        /// that sends its headers and then nothing, or a byte now and then, is stopped after
        /// this long.
        package var stallTimeout: TimeInterval = 60
        /// The slowest a moving transfer may be, in bytes per second.
        package var minimumRate = 1024
        /// The rate that scales an exchange's own deadline (``requestBudget(responseBytes:)``)
        /// to what it may carry, in bytes per second: a 64 MiB answer may take 17 minutes
        /// more than a small one.
        package var budgetRate = 64 << 10
        /// Seconds to open the connection.
        package var connectTimeout: TimeInterval = 30
        /// The whole operation's deadline, when it has one: no exchange runs past it.
        package var deadline: Deadline?

        /// The most one exchange may take in all: the connection, the wait for the answer,
        /// and an answer of `responseBytes` at ``budgetRate`` (at least the stall time-out).
        package func requestBudget(responseBytes: Int) -> TimeInterval {
            connectTimeout + responseTimeout + max(stallTimeout, Double(responseBytes) / Double(max(1, budgetRate)))
        }

        package init() {}
    }

    /// The account's origin: credentials go to it and nowhere else.
    package let origin: URL
    private let authorization: String?
    private let limits: Limits
    private let connection: Mutex<CurlConnection>

    /// A funnel for the account at `baseURL`.
    ///
    /// - Throws: ``RemoteError/Code/insecure`` for `http://` to another machine without
    ///   `allowInsecureHTTP`; ``RemoteError/Code/invalidArgument`` for a URL that is not
    ///   http or https; ``RemoteError/Code/network`` when libcurl cannot start.
    package init(baseURL: URL, user: String?, password: String?, allowInsecureHTTP: Bool = false,
                 limits: Limits = Limits()) throws(RemoteError) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http", baseURL.host != nil else {
            throw RemoteError(.invalidArgument, "not an http or https URL", url: Self.redacted(baseURL))
        }
        if scheme == "http" && !allowInsecureHTTP && !Self.isLoopback(baseURL.host ?? "") {
            throw RemoteError(.insecure, "plain http to another machine would send the password and the calendars unencrypted; use https, or --allow-insecure-http if you must",
                              url: Self.redacted(baseURL))
        }
        let handle: CurlConnection
        switch CurlConnection.make() {
        case .success(let made): handle = made
        case .failure(let problem): throw RemoteError(.network, problem.message, url: Self.redacted(baseURL))
        }
        origin = baseURL
        if let user, let password {
            authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        self.limits = limits
        connection = Mutex(handle)
    }

    /// Whether two URLs have the same scheme, host and port.
    package static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "https" ? 443 : 80 }

    /// Whether a host name is this machine: `localhost`, 127.0.0.0/8 or ::1.
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
    }

    /// A URL as it may be shown: without a user or password.
    package static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        components.user = nil
        components.password = nil
        return components.string ?? "<url>"
    }

    /// Sends a request and reads its whole response (within the limit).
    package func send(_ request: HTTPRequest) throws(RemoteError) -> HTTPResponse {
        var current = request
        for _ in 0...5 {
            guard Self.sameOrigin(current.url, origin) else {
                throw RemoteError(.redirect, "the server sent the request to another origin (\(Self.redacted(current.url))), which is not followed with the account's credentials",
                                  url: Self.redacted(request.url))
            }
            let response = try exchange(current)
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location"),
               let next = URL(string: location, relativeTo: current.url)?.absoluteURL {
                if response.status == 303 { current.method = "GET"; current.body = nil }
                current.url = next
                continue
            }
            return response
        }
        throw RemoteError(.redirect, "too many redirects", url: Self.redacted(request.url))
    }

    private func exchange(_ request: HTTPRequest) throws(RemoteError) -> HTTPResponse {
        var headers = request.headers.filter { $0.key.lowercased() != "content-length" && $0.key.lowercased() != "authorization" }
        if let authorization { headers["Authorization"] = authorization }
        let url = Self.redacted(request.url)
        var limits = self.limits
        if let tighter = request.responseLimit { limits.maximumResponseBytes = min(limits.maximumResponseBytes, tighter) }
        let outcome = connection.withLock { connection in
            connection.perform(method: request.method, url: request.url.absoluteString, headers: headers,
                               body: request.body, limits: limits)
        }
        switch outcome {
        case .failure(.tooLarge):
            throw RemoteError(.tooLarge, "the response is larger than \(limits.maximumResponseBytes >> 20) MiB", url: url)
        case .failure(.tooManyHeaders):
            throw RemoteError(.tooLarge, "the response has more than \(limits.maximumHeaderLines) header lines", url: url)
        case .failure(.transport(let message)):
            throw RemoteError(.network, message, url: url)
        case .failure(.slow(let problem)):
            throw RemoteError(.timedOut, TransferPace.describe(problem, method: request.method, limits: limits,
                                                              responseBytes: limits.maximumResponseBytes), url: url)
        case .success(let response):
            if response.status == 401 || (response.status == 403 && request.method != "REPORT") {
                throw RemoteError(.unauthorized, response.status == 401 ? "the server refused the user name or password" : "the account may not do this",
                                  url: url, status: response.status)
            }
            return HTTPResponse(status: response.status, headers: response.headers, body: Data(response.body), url: request.url)
        }
    }
}

/// libcurl, loaded on the first request (see `Sources/CCurl/shim.h`: it is not linked, so
/// that offline commands do not load its thirty libraries), with its process-wide set-up
/// done once before the first handle (neither is thread-safe itself; a global's
/// initialiser runs exactly once). 3 is `CURL_GLOBAL_ALL` (SSL and Win32). The failure is
/// what to tell the user.
private nonisolated(unsafe) let curlLibrary: Result<UnsafePointer<CCurl_library>, CurlUnavailable> = {
    let library: UnsafePointer<CCurl_library>
    switch DynamicLibrary.load({ CCurl_load($0, $1, $2) }) {
    case .success(let loaded): library = loaded
    case .failure(let failure):
        return .failure(CurlUnavailable(message: "libcurl could not be loaded (\(failure.reason)); install it: apt-get install libcurl4"))
    }
    guard library.pointee.global_init!(3) == CURLE_OK else {
        return .failure(CurlUnavailable(message: "libcurl could not be initialised (curl_global_init)"))
    }
    return .success(library)
}()

/// Why libcurl cannot be used.
private struct CurlUnavailable: Error {
    var message: String
}

/// One libcurl easy handle: its connection, TLS session and DNS caches live across
/// requests. Used only under ``HTTPFunnel``'s lock.
private final class CurlConnection {
    enum Problem: Error { case tooLarge, tooManyHeaders, transport(String), slow(TransferPace.Problem) }
    struct Response { var status: Int; var headers: [String: String]; var body: [UInt8] }

    /// What one transfer has received so far; the callbacks' context.
    final class Transfer {
        let limit: Int
        let headerLimit: Int
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        var headerLines = 0
        /// Bytes of the answer so far, status line and headers included.
        var received = 0
        var pace: TransferPace
        var problem: Problem?
        init(limit: Int, headerLimit: Int, pace: TransferPace) {
            self.limit = limit
            self.headerLimit = headerLimit
            self.pace = pace
        }
    }

    private let handle: UnsafeMutableRawPointer
    private let curl: UnsafePointer<CCurl_library>

    /// A new handle, or why there is none.
    static func make() -> Result<CurlConnection, CurlUnavailable> {
        curlLibrary.flatMap { curl in
            guard let handle = curl.pointee.easy_init!() else {
                return .failure(CurlUnavailable(message: "libcurl could not make a connection handle (curl_easy_init)"))
            }
            return .success(CurlConnection(handle: handle, curl: curl))
        }
    }

    private init(handle: UnsafeMutableRawPointer, curl: UnsafePointer<CCurl_library>) {
        self.handle = handle
        self.curl = curl
    }

    deinit { curl.pointee.easy_cleanup!(handle) }

    func perform(method: String, url: String, headers: [String: String], body: Data?,
                 limits: HTTPFunnel.Limits) -> Result<Response, Problem> {
        // Every option is set anew for each request; the connection cache survives a reset.
        curl.pointee.easy_reset!(handle)
        let pace = TransferPace(limits: limits, responseBytes: limits.maximumResponseBytes)
        let latestEnd = pace.latestEnd
        let transfer = Transfer(limit: limits.maximumResponseBytes, headerLimit: limits.maximumHeaderLines, pace: pace)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        var list: UnsafeMutablePointer<curl_slist>?
        // No `Expect: 100-continue` (a round trip for nothing), no chunked bodies.
        for line in headers.map({ "\($0.key): \($0.value)" }).sorted() + ["Expect:", "Transfer-Encoding:"] {
            list = curl.pointee.slist_append!(list, line)
        }
        defer { curl.pointee.slist_free_all!(list) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var status = 0
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            var ok = true
            func set(_ result: CURLcode) { if result != CURLE_OK { ok = false } }
            set(CCurl_setopt_long(curl, handle, CURLOPT_NOSIGNAL, 1))
            set(CCurl_setopt_pointer(curl, handle, CURLOPT_ERRORBUFFER, errors.baseAddress))
            set(CCurl_setopt_string(curl, handle, CURLOPT_URL, url))
            set(CCurl_setopt_string(curl, handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(CCurl_setopt_long(curl, handle, CURLOPT_FOLLOWLOCATION, 0))
            set(CCurl_setopt_long(curl, handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(CCurl_setopt_long(curl, handle, CURLOPT_SSL_VERIFYHOST, 2))
            // The pace (TransferPace) decides when a slow exchange ends, from the progress
            // callback; libcurl's own overall time-out is only a backstop a little later.
            let left = latestEnd - Deadline.now()
            let connectSeconds = min(limits.connectTimeout, max(left, 0.001))
            set(CCurl_setopt_long(curl, handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int((connectSeconds * 1000).rounded(.up)))))
            set(CCurl_setopt_long(curl, handle, CURLOPT_TIMEOUT_MS, max(1, Int(((max(left, 0) + 5) * 1000).rounded(.up)))))
            set(CCurl_setopt_long(curl, handle, CURLOPT_NOPROGRESS, 0))
            set(CCurl_setopt_progress(curl, handle, CURLOPT_XFERINFOFUNCTION, checkPace))
            set(CCurl_setopt_pointer(curl, handle, CURLOPT_XFERINFODATA, context.toOpaque()))
            set(CCurl_setopt_offset(curl, handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maximumResponseBytes)))
            set(CCurl_setopt_string(curl, handle, CURLOPT_USERAGENT, "OpenEventKit"))
            set(CCurl_setopt_list(curl, handle, CURLOPT_HTTPHEADER, list))
            set(CCurl_setopt_callback(curl, handle, CURLOPT_WRITEFUNCTION, receiveBody))
            set(CCurl_setopt_pointer(curl, handle, CURLOPT_WRITEDATA, context.toOpaque()))
            set(CCurl_setopt_callback(curl, handle, CURLOPT_HEADERFUNCTION, receiveHeader))
            set(CCurl_setopt_pointer(curl, handle, CURLOPT_HEADERDATA, context.toOpaque()))
            if let body {
                set(CCurl_setopt_offset(curl, handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                body.withUnsafeBytes { bytes in
                    // An empty body still needs a valid pointer: curl would otherwise read
                    // the request body from standard input.
                    let empty: StaticString = ""
                    set(CCurl_setopt_string(curl, handle, CURLOPT_COPYPOSTFIELDS,
                                            bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                                                ?? UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)))
                }
            } else if method == "GET" {
                set(CCurl_setopt_long(curl, handle, CURLOPT_HTTPGET, 1))
            }
            if method != "GET" && method != "POST" { set(CCurl_setopt_string(curl, handle, CURLOPT_CUSTOMREQUEST, method)) }
            guard ok else { curl.pointee.easy_reset!(handle); return CURLE_FAILED_INIT }
            let code = curl.pointee.easy_perform!(handle)
            _ = CCurl_getinfo_long(curl, handle, CURLINFO_RESPONSE_CODE, &status)
            // The handle must not keep pointers to the error buffer, the header list or the
            // transfer past this scope; the reset keeps the connection.
            curl.pointee.easy_reset!(handle)
            return code
        }
        if let problem = transfer.problem { return .failure(problem) }
        if code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge) }
        if code == CURLE_OPERATION_TIMEDOUT && Deadline.now() >= latestEnd - 0.1 {
            // libcurl's backstop, or its connection time-out cut short by a deadline.
            return .failure(.slow(transfer.pace.endingLimit))
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.transport(detail.isEmpty ? curl.pointee.easy_strerror!(code).map { String(cString: $0) } ?? "error \(code.rawValue)" : detail))
        }
        return .success(Response(status: status, headers: transfer.headers, body: transfer.body))
    }
}

/// Asks the transfer's pace whether to go on; ends the transfer (non-zero) when it is too
/// slow, stalled or out of time.
private let checkPace: CCurl_progress_callback = { context, _, _, uploadTotal, uploaded in
    let transfer = Unmanaged<CurlConnection.Transfer>.fromOpaque(context!).takeUnretainedValue()
    guard let problem = transfer.pace.observe(now: Deadline.now(), uploaded: Int(uploaded), uploadTotal: Int(uploadTotal),
                                              received: transfer.received) else { return 0 }
    transfer.problem = .slow(problem)
    return 1
}

/// Appends a piece of the response body, or stops the transfer once it is over the limit.
private let receiveBody: CCurl_data_callback = { data, size, count, context in
    let transfer = Unmanaged<CurlConnection.Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    transfer.received += length
    guard transfer.body.count + length <= transfer.limit else {
        transfer.problem = .tooLarge
        transfer.body = []
        return 0
    }
    if let data { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

/// Reads one header line. A status line starts a new set (after a `100 Continue` or an
/// interim response, only the last set counts); names are kept in lower case, repeated
/// headers joined with commas.
private let receiveHeader: CCurl_data_callback = { data, size, count, context in
    let transfer = Unmanaged<CurlConnection.Transfer>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    transfer.received += length
    transfer.headerLines += 1
    guard transfer.headerLines <= transfer.headerLimit else {
        transfer.problem = .tooManyHeaders
        return 0
    }
    guard let data else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        transfer.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if let earlier = transfer.headers[name] { transfer.headers[name] = earlier + ", " + value } else { transfer.headers[name] = value }
    }
    return length
}
