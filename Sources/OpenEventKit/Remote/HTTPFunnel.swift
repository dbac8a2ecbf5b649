import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

/// The one way OpenEventKit talks to a server: FoundationNetworking's `URLSession` (libcurl,
/// TLS verified against the system's certificate store), with every rule of the network in
/// one place:
///
/// - Credentials (HTTP Basic) are added here, and only to requests for the account's own
///   origin; they never appear in a URL, an error or a log.
/// - `http://` is refused unless the host is this machine (loopback) or the account allows
///   insecure HTTP explicitly.
/// - Redirects are followed only within the same origin (and at most 5); the method, body
///   and headers go with them.
/// - A response larger than ``Limits/maximumResponseBytes`` is cut off and is an error, so a
///   hostile server cannot fill memory; request bodies are sent with `Content-Length`, never
///   chunked (Radicale refuses chunked bodies).
///
/// Requests run one at a time, each on a connection of its own (see ``exchange(_:)``), and
/// block the caller; callers never hold the store's lock while they wait.
package final class HTTPFunnel: Sendable {
    /// Bounds on what one exchange may cost.
    package struct Limits: Sendable {
        /// The largest response body read, in bytes.
        package var maximumResponseBytes = 64 << 20
        /// Seconds without progress before a request fails.
        package var timeout: TimeInterval = 60
        package init() {}
    }

    /// The account's origin: credentials go to it and nowhere else.
    package let origin: URL
    private let authorization: String?
    private let limits: Limits
    private let delegate: SessionDelegate
    private let session: URLSession

    /// A funnel for the account at `baseURL`.
    ///
    /// - Throws: ``RemoteError/Code/insecure`` for `http://` to another machine without
    ///   `allowInsecureHTTP`; ``RemoteError/Code/invalidArgument`` for a URL that is not
    ///   http or https.
    package init(baseURL: URL, user: String?, password: String?, allowInsecureHTTP: Bool = false,
                 limits: Limits = Limits()) throws(RemoteError) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http", baseURL.host != nil else {
            throw RemoteError(.invalidArgument, "not an http or https URL", url: Self.redacted(baseURL))
        }
        if scheme == "http" && !allowInsecureHTTP && !Self.isLoopback(baseURL.host ?? "") {
            throw RemoteError(.insecure, "plain http to another machine would send the password and the calendars unencrypted; use https, or --allow-insecure-http if you must",
                              url: Self.redacted(baseURL))
        }
        origin = baseURL
        if let user, let password {
            authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        self.limits = limits
        delegate = SessionDelegate(limit: limits.maximumResponseBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

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
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        // No keep-alive: FoundationNetworking on Linux waits out the whole timeout, spinning,
        // when a server closes a reused connection without answering (a server killed or
        // restarted in the middle of a sync); a fresh connection per request fails at once.
        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        if let body = request.body {
            urlRequest.httpBody = body
            urlRequest.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
        }
        let outcome = delegate.run(session.dataTask(with: urlRequest))
        let url = Self.redacted(request.url)
        switch outcome {
        case .failure(let problem):
            switch problem {
            case .tooLarge:
                throw RemoteError(.tooLarge, "the response is larger than \(limits.maximumResponseBytes >> 20) MiB", url: url)
            case .transport(let message):
                throw RemoteError(.network, message, url: url)
            }
        case .success(let (response, body)):
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            if response.statusCode == 401 || (response.statusCode == 403 && request.method != "REPORT") {
                throw RemoteError(.unauthorized, response.statusCode == 401 ? "the server refused the user name or password" : "the account may not do this",
                                  url: url, status: response.statusCode)
            }
            return HTTPResponse(status: response.statusCode, headers: headers, body: body, url: response.url ?? request.url)
        }
    }
}

/// Collects one task's response for ``HTTPFunnel``, refusing redirects (the funnel follows
/// them itself, within the origin) and cutting off bodies over the limit.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Problem: Error { case tooLarge, transport(String) }

    private struct Running {
        var response: HTTPURLResponse?
        var body = Data()
        var problem: Problem?
        var done: DispatchSemaphore?
    }

    private let limit: Int
    private let state = Mutex(Running())

    init(limit: Int) { self.limit = limit }

    func run(_ task: URLSessionDataTask) -> Result<(HTTPURLResponse, Data), Problem> {
        let done = DispatchSemaphore(value: 0)
        state.withLock { $0 = Running(done: done) }
        task.resume()
        done.wait()
        return state.withLock { running in
            if let problem = running.problem { return .failure(problem) }
            guard let response = running.response else { return .failure(.transport("no response")) }
            return .success((response, running.body))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let tooLarge = response.expectedContentLength > Int64(limit)
        state.withLock {
            $0.response = response as? HTTPURLResponse
            if tooLarge { $0.problem = .tooLarge }
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { running -> Bool in
            guard running.problem == nil else { return true }
            if running.body.count + data.count > limit {
                running.problem = .tooLarge
                running.body = Data()
                return true
            }
            running.body.append(data)
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let done = state.withLock { running -> DispatchSemaphore? in
            if let error, running.problem == nil { running.problem = .transport(error.localizedDescription) }
            if running.response == nil, running.problem == nil, let response = task.response as? HTTPURLResponse {
                running.response = response
            }
            return running.done
        }
        done?.signal()
    }
}
