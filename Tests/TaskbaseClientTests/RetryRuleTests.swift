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
