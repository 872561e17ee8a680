import CZlib
import TaskCore

/// gzip for the API's larger answers, as GitHub's API and nginx's `gzip on` give them: a list of
/// 100 of the benchmark's tasks is 46 KiB of JSON and 2.8 KiB gzipped at level 1.
///
/// Only `GET` (and `HEAD`) answers of 200 with a JSON body of `minimumBytes` or more and no
/// `ETag` are compressed, when the request's `Accept-Encoding` takes gzip; those answers say
/// `Vary: Accept-Encoding` whether compressed or not, so a cache keeps the two apart.
/// - No `ETag`: a task's ETag is its version and `If-Match` compares it strongly, which a
///   gzipped body may not share with the plain one (RFC 9110 §8.8.3); so single tasks, whose
///   documents are small anyway, go as they are.
/// - No other method: what a POST answers may carry a secret (a new token) beside what the
///   caller wrote, the mix that compression leaks through lengths (BREACH).
/// - Errors and event streams go as they are: small, or written as they come.
public struct ResponseCompression: Sendable, Equatable {
    /// zlib's level: 1 (fastest, nginx's default) to 9 (smallest).
    public var level: Int32
    /// The smallest body compressed: below it gzip's 18 bytes of framing and the CPU cost
    /// more than the bytes saved (nginx's `gzip_min_length` idea; a single task is ~500).
    public var minimumBytes: Int

    /// Level 1 from 1 KiB.
    public static let standard = ResponseCompression(level: 1, minimumBytes: 1024)

    /// Compression at `level` (1...9) for bodies of `minimumBytes` or more.
    public init(level: Int32, minimumBytes: Int) {
        self.level = level
        self.minimumBytes = minimumBytes
    }

    /// `response` as it goes to `request`'s client: gzipped when both allow it (above).
    /// A response made once and kept gets its gzipped body once too (`prepared`).
    func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
        // The cheap tests first: a single task's answer (the API's hottest) fails on its size.
        guard case .bytes(let body) = response.body, body.count >= minimumBytes, response.status == 200,
            request.method == "GET" || request.method == "HEAD",
            response.header("etag") == nil, response.header("content-type")?.hasPrefix("application/json") == true
        else { return }
        response.headers.append(("Vary", "Accept-Encoding"))
        guard AcceptEncoding.takesGzip(request.header("accept-encoding")),
            let packed = response.gzippedBody ?? Gzip.compress(body, level: level), packed.count < body.count
        else { return }
        response.headers.append(("Content-Encoding", "gzip"))
        response.body = .bytes(packed)
    }
}

extension ResponseCompression {
    /// `response` with its gzipped body made now (`HTTPResponse.gzippedBody`), when it is one
    /// `apply` may compress: for an answer made once and sent many times.
    func prepared(_ response: HTTPResponse) -> HTTPResponse {
        guard case .bytes(let body) = response.body, body.count >= minimumBytes else { return response }
        var prepared = response
        prepared.gzippedBody = Gzip.compress(body, level: level)
        return prepared
    }
}

/// What an `Accept-Encoding` header (RFC 9110 §12.5.3) says of gzip.
enum AcceptEncoding {
    /// Whether `header` takes gzip: `gzip` or `x-gzip` with a weight above zero, or, when
    /// neither is named, `*` with one. No header, or a weight that is not a number, is no.
    static func takesGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var wildcard: Bool?
        for element in header.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces().lowercased(), !name.isEmpty else { continue }
            var weight: Double? = 1
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" { weight = Double(pair[1].trimmingSpaces()) }
            }
            let takes = (weight ?? 0) > 0
            switch name {
            case "gzip", "x-gzip": return takes
            case "*": wildcard = takes
            default: continue
            }
        }
        return wildcard ?? false
    }
}

/// gzip (RFC 1952) through zlib, whole bodies at a time.
public enum Gzip {
    /// `bytes` gzipped at `level`; nil if zlib fails (the body then goes as it is).
    public static func compress(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        guard taskbase_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// The bytes `gzipped` holds; nil when it is not one whole gzip member, or it would unpack
    /// to more than `limit` bytes.
    public static func decompress(_ gzipped: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard taskbase_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        return gzipped.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output += chunk[..<produced]
                guard output.count <= limit else { return nil }
                switch status {
                case Z_STREAM_END: return stream.avail_in == 0 ? output : nil
                case Z_OK: continue
                default: return nil
                }
            }
        }
    }
}
