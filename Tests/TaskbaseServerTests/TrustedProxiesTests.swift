import APITokens
import Foundation
import Synchronization
@testable import TaskbaseServer
import TaskbaseWire
import Testing

@Suite("Trusted proxies and X-Forwarded-For")
struct TrustedProxiesTests {
    static func address(_ text: String) throws -> PeerAddress { try #require(PeerAddress(parsing: text), "\(text)") }

    static func request(from peer: String, forwardedFor: String?) throws -> HTTPRequest {
        var request = HTTPRequest(method: "GET", path: "/v1/me", headers: forwardedFor.map { ["x-forwarded-for": $0] } ?? [:])
        request.peer = try address(peer)
        return request
    }

    @Test("addresses read as inet_pton reads them; IPv4 is one key however it is written; the rest is refused")
    func addresses() throws {
        #expect(try Self.address("203.0.113.9").description == "203.0.113.9")
        #expect(try Self.address("2001:DB8:0:0::1").description == "2001:db8::1")
        #expect(try Self.address("::ffff:203.0.113.9") == Self.address("203.0.113.9"))
        #expect(try Self.address("127.0.0.1") == PeerAddress(ipv6: (0, UInt64(0x0000_FFFF_7F00_0001).bigEndian)))
        #expect(try Self.address("127.0.0.1").isIPv4 && !Self.address("::1").isIPv4)
        for bad in ["", "unknown", "1.2.3", "1.2.3.4.5", "256.1.1.1", " 1.2.3.4", "1.2.3.4:80", "[::1]", "::g", "_hidden"] {
            #expect(PeerAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a list of addresses and CIDR blocks, IPv4 and IPv6; an entry that is neither is named in the error")
    func parsing() throws {
        let proxies = try TrustedProxies(parsing: " 10.0.0.0/8, 192.168.1.7 ,fd00::/8,")
        #expect(try proxies.contains(Self.address("10.255.0.1")))
        #expect(try !proxies.contains(Self.address("11.0.0.1")))
        #expect(try proxies.contains(Self.address("192.168.1.7")) && !proxies.contains(Self.address("192.168.1.8")))
        #expect(try proxies.contains(Self.address("fd12::5")) && !proxies.contains(Self.address("fe80::1")))
        #expect(try !proxies.contains(Self.address("::ffff:11.0.0.1")))
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains(Self.address("8.8.8.8")))
        #expect(try !TrustedProxies(parsing: "0.0.0.0/0").contains(Self.address("2001:db8::1")), "an IPv4 block holds no IPv6 address")
        #expect(try !TrustedProxies(parsing: "").contains(Self.address("127.0.0.1")))
        for (list, reason) in [
            ("10.0.0.0/33", "\"10.0.0.0/33\": the prefix length must be 0 to 32"), ("fd00::/129", "the prefix length must be 0 to 128"),
            ("10.0.0.1/8", "host bits are set past the prefix; the block is 10.0.0.0/8"), ("proxy.local", "\"proxy.local\": not an IPv4"),
            ("10.0.0.0/", "the prefix length"),
        ] {
            #expect(throws: TrustedProxiesError.self, "\(list)") { try TrustedProxies(parsing: list) }
            do { _ = try TrustedProxies(parsing: list) } catch { #expect(String(describing: error).contains(reason), "\(error)") }
        }
    }

    @Test("the client is the first address from the right that is not a trusted proxy; what else a client writes is not reached")
    func clientAddress() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
        func client(_ peer: String, _ forwarded: String?) throws -> String? {
            proxies.client(of: try Self.request(from: peer, forwardedFor: forwarded))?.description
        }
        #expect(try client("10.0.0.2", "203.0.113.9") == "203.0.113.9")
        #expect(try client("10.0.0.2", "203.0.113.9, 10.0.0.3") == "203.0.113.9", "a chain of trusted proxies")
        // The attack: a client writes the address it would like to be charged to; the proxy
        // appends the real one, which is what is read.
        #expect(try client("10.0.0.2", "198.51.100.1, 203.0.113.9") == "203.0.113.9")
        #expect(try client("10.0.0.2", "2001:db8::7") == "2001:db8::7")
        #expect(try client("10.0.0.2", nil) == "10.0.0.2", "no header: the proxy itself")
        #expect(try client("10.0.0.2", "10.0.0.4, 10.0.0.3") == "10.0.0.4", "every hop trusted: the farthest")
        #expect(try client("10.0.0.2", "203.0.113.9, unknown") == "10.0.0.2", "junk ends the walk at the last trusted hop")
        #expect(try client("10.0.0.2", "203.0.113.9, unknown, 10.0.0.3") == "10.0.0.3")
        // A connection that is not a trusted proxy is its own address, whatever it claims.
        #expect(try client("203.0.113.9", "198.51.100.1") == "203.0.113.9")
        #expect(try TrustedProxies.none.client(of: Self.request(from: "10.0.0.2", forwardedFor: "203.0.113.9"))?.description == "10.0.0.2")
    }

    static func inventedToken() throws -> String { try TokenSecrets(key: "another key").generate().secret }

    @Test("over HTTP behind a trusted proxy: one client inventing tokens spends its own allowance, not another client's")
    func attackerBehindProxy() async throws {
        let lines = Mutex<[String]>([])
        let f = try await ServerFixture.start(
            // Per hour: one failure back every 20 minutes, not every 20 s, which a busy full run
            // once let pass between the sixth request and the next.
            authFailureLimit: RateLimit(requests: 3, per: .seconds(3_600)), trustedProxies: try TrustedProxies(parsing: "127.0.0.1"),
            log: { line in lines.withLock { $0.append(line) } })
        let attacker = ["X-Forwarded-For": "203.0.113.9"]
        var statuses: [Int] = []
        for _ in 0..<6 { statuses.append(try await f.client().with(token: Self.inventedToken()).get("/v1/me", headers: attacker).status) }
        #expect(statuses == [401, 401, 401, 429, 429, 429], "\(statuses)")
        // Writing another address in front of what the proxy appends does not escape the limit.
        let spoofed = ["X-Forwarded-For": "198.51.100.1, 203.0.113.9"]
        #expect(try await f.client().with(token: Self.inventedToken()).get("/v1/me", headers: spoofed).status == 429)
        // Another client behind the same proxy still gets its token looked up.
        let other = ["X-Forwarded-For": "198.51.100.7"]
        #expect(try await f.client("member").get("/v1/me", headers: other).status == 200)
        #expect(try await f.client().with(token: Self.inventedToken()).get("/v1/me", headers: other).status == 401)
        await f.stop()
        // The access log names each client behind the proxy.
        let clients = lines.withLock { $0 }.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["client"] as? String ?? "?"
        }
        #expect(clients == Array(repeating: "203.0.113.9", count: 7) + ["198.51.100.7", "198.51.100.7"], "\(clients)")
    }

    @Test("without trusted proxies X-Forwarded-For is ignored: a client cannot dodge its allowance by naming other addresses")
    func forwardedForIgnoredByDefault() async throws {
        let f = try await ServerFixture.start(authFailureLimit: RateLimit(requests: 3, per: .seconds(60)))
        var statuses: [Int] = []
        for index in 0..<6 {
            let claimed = ["X-Forwarded-For": "198.51.100.\(index + 1)"]
            statuses.append(try await f.client().with(token: Self.inventedToken()).get("/v1/me", headers: claimed).status)
        }
        #expect(statuses == [401, 401, 401, 429, 429, 429], "\(statuses)")
        await f.stop()
    }

    @Test("on IPv6 a client's address is known: inventing tokens from ::1 spends ::1's allowance; behind an IPv6 proxy, the client's")
    func overIPv6() async throws {
        let f = try await ServerFixture.start(authFailureLimit: RateLimit(requests: 3, per: .seconds(60)), host: "::1")
        #expect(f.server.baseURL.hasPrefix("http://[::1]:"))
        var statuses: [Int] = []
        for _ in 0..<5 {
            let invented = ["Authorization": "Bearer \(try Self.inventedToken())"]
            statuses.append(try await RawConnection.getOverIPv6(f.server.baseURL, "/v1/me", headers: invented).status)
        }
        #expect(statuses == [401, 401, 401, 429, 429], "an address unknown would never be charged: \(statuses)")
        await f.stop()

        let lines = Mutex<[String]>([])
        let proxied = try await ServerFixture.start(
            authFailureLimit: RateLimit(requests: 3, per: .seconds(60)), trustedProxies: try TrustedProxies(parsing: "::1/128"), host: "::1",
            log: { line in lines.withLock { $0.append(line) } })
        let owner = ["Authorization": "Bearer \(try #require(proxied.tokens["owner"]))", "X-Forwarded-For": "2001:db8::7"]
        #expect(try await RawConnection.getOverIPv6(proxied.server.baseURL, "/v1/me", headers: owner).status == 200)
        await proxied.stop()
        #expect(lines.withLock { $0 }.contains { $0.contains(#""client":"2001:db8::7""#) }, "\(lines.withLock { $0 })")
    }
}
