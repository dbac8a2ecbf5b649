import Foundation

/// A calendar collection on a CalDAV server, as discovery finds it.
package struct RemoteCalendar: Sendable, Hashable, Codable {
    /// The collection's path on the server (as the server wrote it).
    package var href: String
    /// `displayname`, else the last path segment.
    package var title: String
    /// Apple's `calendar-color`, as `#RRGGBB`, when the server has one.
    package var color: String?
    /// From `supported-calendar-component-set`: VEVENT, VTODO or both (events when absent).
    package var holdsEvents: Bool
    package var holdsReminders: Bool
    /// Whether `current-user-privilege-set` grants writing.
    package var writable: Bool
    /// Whether the server offers `sync-collection` (RFC 6578) here.
    package var supportsSync: Bool
    /// The collection's sync token when it was listed, if the server gave one: taken before
    /// any item is fetched, so it can start the first sync (see ``CollectionSyncState/baselineToken``).
    package var syncToken: String? = nil
}

/// An item's place and version on the server.
/// Who a CalDAV account is (RFC 6638 §2.4.1): the calendar user addresses invitations name
/// it by (`mailto:` and others, as the server lists them), its display name, and its
/// scheduling Inbox (§2.2), when the server schedules.
package struct AccountIdentity: Sendable, Hashable, Codable {
    /// At most this many addresses are kept (network input is bounded).
    package static let maximumAddresses = 32

    /// The principal's URL (path), as the server gave it.
    package var principal: String
    /// `calendar-user-address-set`, in the server's order.
    package var addresses: [String] = []
    /// The principal's `displayname`.
    package var displayName: String?
    /// `schedule-inbox-URL`.
    package var inbox: String?

    package init(principal: String, addresses: [String] = [], displayName: String? = nil, inbox: String? = nil) {
        self.principal = principal
        self.addresses = addresses
        self.displayName = displayName
        self.inbox = inbox
    }
}

package struct RemoteVersion: Sendable, Hashable {
    package var href: String
    package var etag: String?
}

/// CalDAV (RFC 4791) and WebDAV sync (RFC 6578) over one ``HTTPFunnel``: discovery,
/// listing, fetching and writing items with their ETags.
package struct CalDAVClient: Sendable {
    package let http: HTTPFunnel
    /// The URL the account was given as.
    package let baseURL: URL
    /// Items fetched per `calendar-multiget` report.
    package static let multigetBatch = 200

    package init(http: HTTPFunnel, baseURL: URL) {
        self.http = http
        self.baseURL = baseURL
    }

    /// A server path (or URL) as a URL on the account's server.
    package func url(_ href: String) -> URL {
        URL(string: href, relativeTo: baseURL)?.absoluteURL ?? baseURL
    }

    private func multistatus(_ method: String, _ href: String, depth: String, body: String) throws(RemoteError) -> (responses: [DAVResponse], syncToken: String?, status: Int) {
        var responses: [DAVResponse] = []
        let (token, status) = try multistatus(method, href, depth: depth, body: body) { responses.append($0) }
        return (responses, token, status)
    }

    /// A multistatus request whose responses are handed over one at a time, as the parser
    /// reaches them (`responseLimit`: a tighter bound on the body than the funnel's).
    private func multistatus(_ method: String, _ href: String, depth: String, body: String, responseLimit: Int? = nil,
                             each: (DAVResponse) -> Void) throws(RemoteError) -> (syncToken: String?, status: Int) {
        let target = url(href)
        var request = HTTPRequest(method, target, headers: [
            "Depth": depth, "Content-Type": "application/xml; charset=utf-8",
        ], body: Data(body.utf8))
        request.responseLimit = responseLimit
        let response = try http.send(request)
        guard response.status == 207 else {
            // RFC 6578 names 403 with the DAV:valid-sync-token precondition; servers also use
            // 409 and 412 (Xandikos), with or without the element. A sync report refused so
            // is a token the server no longer knows: listing everything instead loses nothing.
            let named = String(decoding: response.body.prefix(1 << 16), as: UTF8.self).contains("valid-sync-token")
            if method == "REPORT", body.contains("<d:sync-collection"),
               [403, 409, 412].contains(response.status) || (response.status == 400 && named) {
                throw RemoteError(.invalidSyncToken, "the server no longer knows the sync token", url: HTTPFunnel.redacted(target), status: response.status)
            }
            throw RemoteError(.httpStatus, "\(method) was not answered with a multistatus", url: HTTPFunnel.redacted(target), status: response.status)
        }
        let token = try DAVResponse.each(in: response.body, url: HTTPFunnel.redacted(target), each)
        return (token, response.status)
    }

    // MARK: Discovery

    /// The account's calendars: RFC 6764's `/.well-known/caldav`, else the URL as given;
    /// `current-user-principal`, `calendar-home-set`, then the home's collections. A URL that
    /// is itself a calendar gives that calendar.
    package func discoverCalendars() throws(RemoteError) -> [RemoteCalendar] {
        try discover().calendars
    }

    /// The account's calendars (``discoverCalendars()``) and who the account is (its
    /// principal's RFC 6638 `calendar-user-address-set` and `displayname`; nil when there is
    /// no principal, as for a calendar URL given directly).
    package func discover() throws(RemoteError) -> (calendars: [RemoteCalendar], identity: AccountIdentity?) {
        let principalBody = Self.principalBody
        var principal: String?
        var home: String?
        var failure: RemoteError?
        for start in [baseURL.path.isEmpty || baseURL.path == "/" ? "/.well-known/caldav" : baseURL.absoluteString, baseURL.absoluteString] {
            let found: (responses: [DAVResponse], syncToken: String?, status: Int)
            do { found = try multistatus("PROPFIND", start, depth: "0", body: principalBody) } catch {
                // A server too slow to answer one start is not given the time again for the next.
                if error.code == .timedOut { throw error }
                failure = error
                continue
            }
            for response in found.responses {
                if response.property("resourcetype")?.child("calendar", DAVXML.caldav) != nil {
                    return (try calendars(in: response.href, depth: "0"), nil)
                }
                principal = principal ?? response.property("current-user-principal")?.child("href")?.trimmedText
                home = home ?? response.property("calendar-home-set", DAVXML.caldav)?.child("href")?.trimmedText
            }
            if principal != nil || home != nil { break }
        }
        if home == nil, let principal {
            let found = try multistatus("PROPFIND", principal, depth: "0", body: principalBody)
            home = found.responses.lazy.compactMap { $0.property("calendar-home-set", DAVXML.caldav)?.child("href")?.trimmedText }.first
        }
        guard let home else {
            // The server could not be reached, refused the account, or failed TLS: say that.
            if let failure, [.network, .unauthorized, .insecure, .redirect, .tooLarge, .timedOut].contains(failure.code) { throw failure }
            throw RemoteError(.invalidArgument, "no CalDAV calendar home was found here (no current-user-principal or calendar-home-set)",
                              url: HTTPFunnel.redacted(baseURL))
        }
        // Who the account is matters for invitations only: a server that does not answer
        // for its principal still syncs.
        let identity = principal.flatMap { principal in try? self.identity(of: principal) }
        return (try calendars(in: home, depth: "1"), identity)
    }

    /// What the discovery asks of a principal.
    private static let principalBody = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:current-user-principal/><d:resourcetype/><c:calendar-home-set/></d:prop></d:propfind>
        """

    /// The account's identity: its principal's `calendar-user-address-set` (RFC 6638
    /// §2.4.1, the addresses invitations name it by), `displayname`, and schedule Inbox
    /// (§2.2). A server without scheduling answers with none of them: an empty identity.
    package func identity(of principal: String) throws(RemoteError) -> AccountIdentity {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:displayname/><c:calendar-user-address-set/><c:schedule-inbox-URL/></d:prop></d:propfind>
            """
        let found = try multistatus("PROPFIND", principal, depth: "0", body: body)
        var identity = AccountIdentity(principal: principal)
        for response in found.responses {
            let addresses = response.property("calendar-user-address-set", DAVXML.caldav)?.all("href").map(\.trimmedText) ?? []
            identity.addresses += addresses.filter { !$0.isEmpty && !identity.addresses.contains($0) }
            if identity.displayName == nil, let name = response.property("displayname")?.trimmedText, !name.isEmpty {
                identity.displayName = name
            }
            if identity.inbox == nil, let inbox = response.property("schedule-inbox-URL", DAVXML.caldav)?.child("href")?.trimmedText,
               !inbox.isEmpty {
                identity.inbox = inbox
            }
        }
        identity.addresses = Array(identity.addresses.prefix(AccountIdentity.maximumAddresses))
        return identity
    }


    /// The calendar collections at `href` (depth 0: itself; 1: its members).
    package func calendars(in href: String, depth: String) throws(RemoteError) -> [RemoteCalendar] {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/"><d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><c:supported-calendar-component-set/><d:current-user-privilege-set/><d:supported-report-set/><d:sync-token/></d:prop></d:propfind>
            """
        var result: [RemoteCalendar] = []
        for response in try multistatus("PROPFIND", href, depth: depth, body: body).responses {
            guard response.property("resourcetype")?.child("calendar", DAVXML.caldav) != nil else { continue }
            let components = response.property("supported-calendar-component-set", DAVXML.caldav)?.all("comp", DAVXML.caldav)
            let names: Set<String>
            if let components {
                names = Set(components.compactMap { $0.attributes["name"]?.uppercased() })
            } else {
                names = ["VEVENT"]
            }
            let privileges = response.property("current-user-privilege-set")?.all("privilege").flatMap { $0.children.map(\.name) }
            let writable = privileges.map { Set($0).isDisjoint(with: ["write", "write-content", "all", "bind"]) == false } ?? true
            let reports = response.property("supported-report-set")?.all("supported-report").flatMap { $0.child("report")?.children.map(\.name) ?? [] } ?? []
            let segment = response.href.split(separator: "/").last.map { String($0).removingPercentEncoding ?? String($0) } ?? response.href
            let title = response.property("displayname")?.trimmedText
            result.append(RemoteCalendar(
                href: response.href, title: title?.isEmpty == false ? title! : segment,
                color: Self.color(response.property("calendar-color", DAVXML.apple)?.trimmedText),
                holdsEvents: names.contains("VEVENT") || names.isEmpty, holdsReminders: names.contains("VTODO"),
                writable: writable, supportsSync: reports.contains("sync-collection"),
                syncToken: response.property("sync-token").map(\.trimmedText).flatMap { $0.isEmpty ? nil : $0 }))
        }
        return result
    }

    /// `#RRGGBB` from Apple's `#RRGGBBAA` or `#RRGGBB`.
    static func color(_ text: String?) -> String? {
        guard let text, text.hasPrefix("#"), text.count == 7 || text.count == 9 else { return nil }
        let hex = String(text.prefix(7)).uppercased()
        return hex.dropFirst().allSatisfy(\.isHexDigit) ? hex : nil
    }

    // MARK: Listing

    /// Every item of a calendar with its ETag (`PROPFIND` depth 1).
    package func listItems(in calendar: String) throws(RemoteError) -> [RemoteVersion] {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>
            """
        return try multistatus("PROPFIND", calendar, depth: "1", body: body).responses.compactMap { response in
            guard response.property("resourcetype")?.children.isEmpty ?? true,
                  !Self.sameCollection(response.href, calendar) else { return nil }
            return RemoteVersion(href: response.href, etag: response.property("getetag")?.trimmedText)
        }
    }

    /// The calendar's current sync token (`DAV:sync-token`), or nil.
    package func syncToken(of calendar: String) throws(RemoteError) -> String? {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>
            """
        return try multistatus("PROPFIND", calendar, depth: "0", body: body).responses.first?.property("sync-token")?.trimmedText
    }

    /// What changed since `token` (RFC 6578): changed items with their ETags, removed hrefs,
    /// and the new token.
    package func changes(in calendar: String, since token: String) throws(RemoteError) -> (changed: [RemoteVersion], removed: [String], token: String?) {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <d:sync-collection xmlns:d="DAV:"><d:sync-token>\(DAVXML.escaped(token))</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>
            """
        let found = try multistatus("REPORT", calendar, depth: "1", body: body)
        var changed: [RemoteVersion] = [], removed: [String] = []
        for response in found.responses where !Self.sameCollection(response.href, calendar) {
            if response.status == 404 { removed.append(response.href) }
            else { changed.append(RemoteVersion(href: response.href, etag: response.property("getetag")?.trimmedText)) }
        }
        return (changed, removed, found.syncToken)
    }

    /// Whether two hrefs name the same collection (trailing slash and encoding aside).
    static func sameCollection(_ a: String, _ b: String) -> Bool {
        func normal(_ text: String) -> String {
            var path = URL(string: text)?.path ?? text
            path = path.removingPercentEncoding ?? path
            while path.hasSuffix("/") { path.removeLast() }
            return path
        }
        return normal(a) == normal(b)
    }

    // MARK: Items

    /// The data and ETags of items (`calendar-multiget`, in batches).
    package func fetch(_ hrefs: [String], from calendar: String) throws(RemoteError) -> [String: (etag: String?, data: String)] {
        var result: [String: (etag: String?, data: String)] = [:]
        var start = 0
        while start < hrefs.count {
            let batch = hrefs[start..<min(start + Self.multigetBatch, hrefs.count)]
            start += Self.multigetBatch
            let body = """
                <?xml version="1.0" encoding="utf-8"?>
                <c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>\(batch.map { "<d:href>\(DAVXML.escaped($0))</d:href>" }.joined())</c:calendar-multiget>
                """
            for response in try multistatus("REPORT", calendar, depth: "1", body: body).responses {
                guard let data = response.property("calendar-data", DAVXML.caldav)?.text else { continue }
                result[response.href] = (response.property("getetag")?.trimmedText, data)
            }
        }
        return result
    }

    /// Every item of a calendar with its data and ETag, in one `calendar-query` REPORT: what
    /// a first sync must transfer, in one request (the server's cheapest way to send it).
    ///
    /// The response may be at most ``fetchAllLimit`` bytes (a ``RemoteError/Code/tooLarge``
    /// error otherwise, and the caller lists and fetches in batches instead): what a first
    /// sync holds in memory is bounded by that, not by the calendar.
    package func fetchAll(from calendar: String) throws(RemoteError) -> [String: (etag: String?, data: String)] {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>
            """
        var result: [String: (etag: String?, data: String)] = [:]
        _ = try multistatus("REPORT", calendar, depth: "1", body: body, responseLimit: Self.fetchAllLimit) { response in
            guard let data = response.property("calendar-data", DAVXML.caldav)?.text else { return }
            result[response.href] = (response.property("getetag")?.trimmedText, data)
        }
        return result
    }

    /// The largest response a first sync takes in one `calendar-query` (about 40,000 typical
    /// events); a larger calendar is listed and fetched in batches.
    package static let fetchAllLimit = 16 << 20

    /// Writes an item: a create (`If-None-Match: *`) when `etag` is nil, else a change
    /// (`If-Match`). Returns the new ETag when the server gives one. A `412` is
    /// ``RemoteError/Code/preconditionFailed``: someone else was first.
    package func put(_ bytes: [UInt8], at href: String, replacing etag: String?) throws(RemoteError) -> String? {
        var headers = ["Content-Type": "text/calendar; charset=utf-8"]
        if let etag { headers["If-Match"] = etag } else { headers["If-None-Match"] = "*" }
        let response = try http.send(HTTPRequest("PUT", url(href), headers: headers, body: Data(bytes)))
        if response.status == 412 { throw RemoteError(.preconditionFailed, "changed on the server since the last sync", url: HTTPFunnel.redacted(url(href)), status: 412) }
        guard (200..<300).contains(response.status) else {
            throw RemoteError(.httpStatus, "PUT was refused", url: HTTPFunnel.redacted(url(href)), status: response.status)
        }
        return response.header("etag")
    }

    /// Removes an item unless it changed since `etag` (a missing item counts as removed).
    package func delete(_ href: String, etag: String?) throws(RemoteError) {
        var headers: [String: String] = [:]
        if let etag { headers["If-Match"] = etag }
        let response = try http.send(HTTPRequest("DELETE", url(href), headers: headers))
        if response.status == 412 { throw RemoteError(.preconditionFailed, "changed on the server since the last sync", url: HTTPFunnel.redacted(url(href)), status: 412) }
        guard (200..<300).contains(response.status) || response.status == 404 else {
            throw RemoteError(.httpStatus, "DELETE was refused", url: HTTPFunnel.redacted(url(href)), status: response.status)
        }
    }
}

