import TaskCore

/// gzip for the API's larger answers, as GitHub's API and nginx's `gzip on` give them: a list of
/// 100 of the benchmark's tasks is 46 KiB of JSON and 2.8 KiB gzipped at level 1.
///
/// Only `GET` (and `HEAD`) answers of 200 with a JSON body of `minimumBytes` or more and no
/// strong `ETag` are compressed, when the request's `Accept-Encoding` takes gzip; those answers
/// say `Vary: Accept-Encoding` whether compressed or not, so a cache keeps the two apart.
/// - No strong `ETag`: a task's ETag is its version and `If-Match` compares it strongly, which
///   a gzipped body may not share with the plain one (RFC 9110 §8.8.3); so single tasks, whose
///   documents are small anyway, go as they are. A weak one (`DigestETag`) names the JSON
///   however it is sent.
/// - No other method: what a POST answers may carry a secret (a new token) beside what the
///   caller wrote, the mix that compression leaks through lengths (BREACH).
/// - Errors and event streams go as they are: small, or written as they come. The export, a
///   stream too, compresses itself as it is written (`ExportRoute`, with `Gzip.Stream`).
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

    /// Bodies this large are compressed off the I/O thread (the global executor's), as large
    /// request bodies are parsed there: a 1,000-task list (~460 KB) takes about 2 ms at level
    /// 1, which every other request on the loop would otherwise wait out.
    static let offLoopBytes = 64 << 10

    /// `response` as it goes to `request`'s client: gzipped when both allow it (above).
    /// A response made once and kept gets its gzipped body once too (`prepared`).
    func apply(to response: inout HTTPResponse, for request: HTTPRequest) async {
        // The cheap tests first: a single task's answer (the API's hottest) fails on its size.
        guard case .bytes(let body) = response.body, body.count >= minimumBytes, response.status == 200,
            request.method == "GET" || request.method == "HEAD",
            !DigestETag.hasStrongTag(response), response.header("content-type")?.hasPrefix("application/json") == true
        else { return }
        response.headers.append(("Vary", "Accept-Encoding"))
        guard AcceptEncoding.takesGzip(request.header("accept-encoding")) else { return }
        let level = level
        let compressed =
            if let made = response.gzippedBody {
                made
            } else if body.count >= Self.offLoopBytes {
                await withTaskExecutorPreference(globalConcurrentExecutor) { Gzip.compress(body, level: level) }
            } else {
                Gzip.compress(body, level: level)
            }
        guard let packed = compressed, packed.count < body.count else { return }
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
