import CSVImport
import Foundation
import TaskCore
import TaskbaseWire

/// One request as the router sees it: libmicrohttpd has parsed it; nothing here parses HTTP.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path without the query, as sent: `/v1/tasks/CORE-7`, escapes intact
    /// (`/v1/teams/T/members/a%2Fb%40example.com`); the router splits it at its slashes and
    /// then decodes each segment.
    public var path: String
    /// The query's parameters in order (a name may repeat).
    public var query: [(name: String, value: String)]
    /// The headers, names lowercased; a repeated header's values joined with `, `.
    public var headers: [String: String]
    /// The body, at most the configured cap; empty when it went to `spooledBody`.
    public var body: [UInt8]
    /// The body of a route that spools (`HTTPBodyPolicy.spoolsToFile`), in a temporary file.
    public var spooledBody: SpooledBody?
    /// The client's address (the connection's peer: behind a proxy, the proxy's); nil when unknown.
    public var peer: PeerAddress?

    /// A request with these parts.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The header `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercasedFieldName]
    }

    /// Every value of query parameter `name`.
    public func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }

    /// The last value of query parameter `name`.
    public func queryValue(_ name: String) -> String? {
        queryValues(name).last
    }

    /// The body to read: its temporary file when it was spooled, else the bytes in memory.
    public func bodySource() -> any ByteSource {
        if let spooledBody { spooledBody.source() } else { MemoryByteSource(body) }
    }

    /// Whether the body is sent as one of `mediaTypes` (lowercased), or says no `Content-Type`:
    /// the type's case and its parameters (`; charset=utf-8`) do not matter.
    public func sendsBody(as mediaTypes: [String]) -> Bool {
        guard let mediaType else { return true }
        return mediaTypes.contains(mediaType)
    }

    /// The body's media type from `Content-Type`, lowercased and without its parameters; nil
    /// when none was sent.
    public var mediaType: String? {
        header("content-type").map { $0.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingSpaces().lowercased() }
    }

    /// The `charset` parameter of the request's `Content-Type`, unquoted, if any.
    public var charset: String? {
        guard let type = header("content-type") else { return nil }
        for parameter in type.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return value.isEmpty ? nil : value
        }
        return nil
    }
}

extension String {
    /// The text lowercased, as field names are kept; the text itself when it has nothing to
    /// lowercase (no ASCII capital, nothing outside ASCII), as most names asked for are.
    var lowercasedFieldName: String {
        var text = self
        let lowercase = text.withUTF8 { bytes in !bytes.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 >= 0x80 } }
        return lowercase ? self : lowercased()
    }
}

/// How a route takes its body: its own cap (nil: the server's), and whether it goes to a
/// temporary file as it arrives rather than into memory.
public struct HTTPBodyPolicy: Sendable {
    /// The largest body, when not the server's `maxBodyBytes`.
    public var maxBytes: Int?
    /// Whether the body is written to a temporary file as it arrives (`HTTPRequest.spooledBody`);
    /// the server's upload admission check (`HTTPServer.start`'s `admitUpload`) judges its
    /// headers first.
    public var spoolsToFile: Bool

    /// A policy with these parts; the default is the server's cap, in memory.
    public init(maxBytes: Int? = nil, spoolsToFile: Bool = false) {
        self.maxBytes = maxBytes
        self.spoolsToFile = spoolsToFile
    }
}

/// What a server's upload admission check says of a request whose body would be spooled
/// (`HTTPBodyPolicy.spoolsToFile`), from its headers alone, before a byte of its body is read.
public enum HTTPUploadAdmission: Sendable {
    /// Its body may be stored, counted among the uploads of `holder` (the API: the token's
    /// user) for `HTTPServerLimits.maxSpooledBodiesPerUser`; nil counts it among no one's.
    case admitted(holder: String?)
    /// Answered with this; its body is never read, and it holds no upload slot.
    case refused(HTTPResponse)
}

/// A client's IP address: IPv4 as the kernel gives it on a connection, or IPv4 or IPv6 as a
/// proxy writes it in `X-Forwarded-For`. IPv4 is kept IPv4-mapped (`::ffff:a.b.c.d`), so one
/// client has one key whichever way it came. Two integers, the address read big-endian, so
/// that making one per request allocates nothing.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first and last 64 bits.
    let high: UInt64, low: UInt64

    init(high: UInt64, low: UInt64) { (self.high, self.low) = (high, low) }

    /// The address in `bytes`, the 16 bytes of IPv6 in network order (IPv4 mapped); nil for
    /// the unspecified address `::`.
    init?(ipv6 bytes: (UInt64, UInt64)) {
        guard bytes.0 != 0 || bytes.1 != 0 else { return nil }
        (high, low) = (UInt64(bigEndian: bytes.0), UInt64(bigEndian: bytes.1))
    }

    /// The address `text` spells: a dotted quad (`203.0.113.9`) or IPv6 (`2001:db8::1`), as
    /// `inet_pton` reads them, nothing around; nil for anything else.
    public init?(parsing text: some StringProtocol) {
        var bytes = (UInt64(0), UInt64(0))
        let text = String(text)
        let parsed = withUnsafeMutableBytes(of: &bytes) { buffer -> Bool in
            if inet_pton(AF_INET, text, buffer.baseAddress) == 1 {
                let v4 = buffer.load(as: UInt32.self)
                buffer.storeBytes(of: 0, as: UInt64.self)
                buffer.storeBytes(of: (Self.mappedIPv4 | UInt64(UInt32(bigEndian: v4))).bigEndian, toByteOffset: 8, as: UInt64.self)
                return true
            }
            return inet_pton(AF_INET6, text, buffer.baseAddress) == 1
        }
        guard parsed, let address = Self(ipv6: bytes) else { return nil }
        self = address
    }

    /// `::ffff:0:0`, the prefix of IPv4-mapped addresses, in the last 64 bits.
    static let mappedIPv4: UInt64 = 0x0000_FFFF_0000_0000

    /// Whether it is an IPv4 address.
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// What one client holds: an IPv4 address as it is, an IPv6 address's /64 (a host is given
    /// a whole /64 and may send from any address in it, a new one per request if it likes).
    public var subscriber: PeerAddress { isIPv4 ? self : PeerAddress(high: high, low: 0) }

    /// Dotted quad for IPv4 (`127.0.0.1`), else IPv6's shortest form (`2001:db8::1`).
    public var description: String {
        // Written on every access-log line: the text goes through the stack, not the heap.
        let bytes = (high.bigEndian, low.bigEndian)
        return withUnsafeBytes(of: bytes) { address in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
                let written =
                    isIPv4
                    ? inet_ntop(AF_INET, address.baseAddress! + 12, text.baseAddress, socklen_t(text.count))
                    : inet_ntop(AF_INET6, address.baseAddress, text.baseAddress, socklen_t(text.count))
                return written.map { String(cString: $0) } ?? "?"
            }
        }
    }
}

/// A reply: status, headers and either a whole body or an event stream.
public struct HTTPResponse: Sendable {
    /// What follows the headers.
    public enum Body: Sendable {
        /// All of it, now.
        case bytes([UInt8])
        /// Written as it comes, until the stream ends (Server-Sent Events).
        case stream(EventStreamBuffer)
    }

    /// The status code.
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body
    /// The body already gzipped, for an answer made once and sent many times (`/openapi.json`,
    /// which anyone may ask for without a token): `ResponseCompression` sends it rather than
    /// compressing the body on every request.
    public var gzippedBody: [UInt8]?
    /// For the access log only, never sent: why a request failed with no refusal of the
    /// service (a 500, or a 503 the database caused), as `ServerFailures` words it.
    public var failure: String?

    /// A response with these parts.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON document with `status` (as `contentType`, `application/problem+json` for a
    /// problem): written by the document itself when it is `JSONWritable` (the same bytes,
    /// without Foundation's encoder), encoded otherwise.
    public static func json<Document: Encodable>(
        _ document: Document, status: Int = 200, contentType: String = "application/json", headers: [(name: String, value: String)] = []
    ) throws -> HTTPResponse {
        var bytes = try (document as? any JSONWritable)?.jsonBytes ?? Array(ServerJSON.encoder.encode(document))
        bytes.append(UInt8(ascii: "\n"))
        return HTTPResponse(status: status, headers: [("Content-Type", contentType)] + headers, body: .bytes(bytes))
    }

    /// A status with no body (204).
    public static func empty(_ status: Int, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.last { Self.sameFieldName($0.name, name) }?.value
    }

    /// Whether two field names are the same, ASCII case ignored (RFC 9110 §5.1: names are
    /// tokens, ASCII): compared in place, as every answer looks several up.
    static func sameFieldName(_ one: String, _ other: String) -> Bool {
        guard one.utf8.count == other.utf8.count else { return false }
        var (one, other) = (one, other)
        return one.withUTF8 { a in
            other.withUTF8 { b in
                for index in a.indices where a[index] != b[index] {
                    guard a[index] ^ b[index] == 0x20, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a[index] | 0x20) else { return false }
                }
                return true
            }
        }
    }

    /// The body's bytes, empty for a stream.
    public var bytes: [UInt8] {
        if case .bytes(let bytes) = body { bytes } else { [] }
    }
}
