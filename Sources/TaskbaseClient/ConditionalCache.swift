import Foundation

/// The last answer to each GET that came with a weak `ETag` (the server's digest of the JSON:
/// task lists, history, teams, members, the summary, `/v1/me`), so the next GET of the same URL
/// sends `If-None-Match` and, while nothing changed, the server answers `304` with no body: an
/// app that refreshes a board downloads a page only when it changed. The caller still gets the
/// whole answer, the kept one.
///
/// A task's own tag is strong (its version) and is not kept: its JSON names the assignee's
/// email, which can change while the version does not. Bounded: `capacity` answers of at most
/// `maximumBodyBytes` each, the least recently used going first. Per client (one identity).
final class ConditionalCache: Sendable {
    /// A kept answer and the tag it came with.
    struct Entry: Sendable {
        var tag: String
        var response: HTTPResponse
    }

    static let capacity = 64
    static let maximumBodyBytes = 1 << 20

    private struct State {
        var entries: [String: Entry] = [:]
        /// URLs, least recently used first.
        var order: [String] = []

        mutating func touch(_ url: String) {
            order.removeAll { $0 == url }
            order.append(url)
        }
    }

    private let state = MutexBox(State())

    /// The kept answer for `url`, if any, marked as just used.
    func entry(for url: String) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[url] else { return nil }
            state.touch(url)
            return entry
        }
    }

    /// The kept answer brought up to date by `notModified`, the server's `304` for `url`: the
    /// kept body with the 304's headers over the kept ones (RFC 9111 §4.3.4), since the tag is
    /// a digest of the body alone and a header may have changed while the body did not (a
    /// history page's `Link` to a next page that did not exist before). Kept as updated.
    func refreshed(_ kept: Entry, with notModified: HTTPResponse, for url: String) -> HTTPResponse {
        var headers = kept.response.headers
        for (name, value) in notModified.headers where !Self.bodyHeaders.contains(name.lowercased()) {
            for existing in headers.keys where existing.caseInsensitiveCompare(name) == .orderedSame { headers[existing] = nil }
            headers[name] = value
        }
        let response = HTTPResponse(status: kept.response.status, headers: headers, body: kept.response.body)
        remember(response, for: url)
        return response
    }

    /// Headers that describe the body a 304 does not carry.
    private static let bodyHeaders: Set<String> = ["content-type", "content-length", "content-encoding", "transfer-encoding"]

    /// Keeps `response` for `url` when it is a `200` with a weak tag and a body small enough;
    /// any other answer to `url` forgets what was kept for it.
    func remember(_ response: HTTPResponse, for url: String) {
        let tag = response.header("ETag")
        state.withLock { state in
            guard response.status == 200, let tag, tag.hasPrefix("W/"), response.body.count <= Self.maximumBodyBytes else {
                state.entries[url] = nil
                state.order.removeAll { $0 == url }
                return
            }
            state.entries[url] = Entry(tag: tag, response: response)
            state.touch(url)
            while state.order.count > Self.capacity { state.entries[state.order.removeFirst()] = nil }
        }
    }
}
