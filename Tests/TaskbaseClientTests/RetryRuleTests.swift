import Foundation
import Testing

@testable import TaskbaseClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Which failed attempts may have reached the server")
struct RetryRuleTests {
    @Test("a connection never made sent nothing; a timeout or a lost connection may have run the request")
    func neverSent() {
        for code: URLError.Code in [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet] {
            #expect(HTTPTransport.neverSent(URLError(code)), "\(code)")
        }
        // After these a retried DELETE's 404 is the deletion done (TransportTests: a lost answer).
        for code: URLError.Code in [.timedOut, .networkConnectionLost, .badServerResponse] {
            #expect(!HTTPTransport.neverSent(URLError(code)), "\(code)")
        }
        #expect(!HTTPTransport.neverSent(CancellationError()))
    }
}

@Suite("How long a 503's or a 429's Retry-After asks to wait")
struct RetryAfterRuleTests {
    static func response(_ retryAfter: String?) -> HTTPResponse {
        HTTPResponse(status: 429, headers: retryAfter.map { ["Retry-After": $0] } ?? [:], body: Data())
    }

    @Test("seconds, an HTTP date counted from now, and zero for none, a past date or an unreadable value")
    func readsBothForms() {
        let now = Date(timeIntervalSince1970: 784_111_770)  // Sun, 06 Nov 1994 08:49:30 GMT
        #expect(HTTPTransport.retryAfter(of: Self.response("120"), now: now) == .seconds(120))
        #expect(HTTPTransport.retryAfter(of: Self.response(" 7 "), now: now) == .seconds(7))
        #expect(HTTPTransport.retryAfter(of: Self.response("Sun, 06 Nov 1994 08:49:37 GMT"), now: now) == .seconds(7))
        #expect(HTTPTransport.retryAfter(of: Self.response("Sun, 06 Nov 1994 08:49:00 GMT"), now: now) == .zero)
        for unreadable in [nil, "", "soon", "-5", "1.5", "06 Nov 1994"] {
            #expect(HTTPTransport.retryAfter(of: Self.response(unreadable), now: now) == .zero, "\(unreadable ?? "none")")
        }
        // Too many digits for an Int is still "a long time", never zero; and never past a day,
        // which a clock's instant can take (Int.max seconds trapped the change feed's wait).
        #expect(HTTPTransport.retryAfter(of: Self.response("99999999999999999999999"), now: now) == .seconds(86_400))
        #expect(HTTPTransport.retryAfter(of: Self.response("9223372036854775807"), now: now) == .seconds(86_400))
        #expect(HTTPTransport.retryAfter(of: Self.response("Fri, 31 Dec 9999 23:59:59 GMT"), now: now) == .seconds(86_400))
    }

    @Test("the pause is the longer of the backoff and the server's ask, beyond maximumBackoff; none past requestTimeout")
    func pauseHonoursTheServer() throws {
        var configuration = ClientConfiguration(baseURL: try #require(URL(string: "http://127.0.0.1:1/")), token: "tb_x")
        configuration.backoff = .milliseconds(100)
        configuration.maximumBackoff = .seconds(1)
        configuration.requestTimeout = .seconds(30)
        #expect(configuration.pause(before: 1, serverSaid: .zero) == .milliseconds(100))
        #expect(configuration.pause(before: 1, serverSaid: .seconds(20)) == .seconds(20))
        #expect(configuration.pause(before: 9, serverSaid: .milliseconds(5)) == .seconds(1))
        #expect(configuration.pause(before: 1, serverSaid: .seconds(30)) == .seconds(30))
        #expect(configuration.pause(before: 1, serverSaid: .seconds(31)) == nil)
    }
}
