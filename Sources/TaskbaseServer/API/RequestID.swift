import Synchronization

/// The id of one request, sent back as `X-Request-Id` and written in its access-log line, so a
/// client's report ("the 500 I got at 10:02") finds the server's line. A caller (or a proxy in
/// front) that sends a usable `X-Request-Id` gets its own back; anyone else gets this process's
/// prefix and a count (`k2mz7q4d-1c3`), unique across processes without a lookup.
enum RequestID {
    /// Eight random base-32 characters, made once per process.
    static let prefix: String = {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in alphabet[Int(generator.next() % 32)] })
    }()

    private static let count = Atomic<UInt64>(0)

    /// The id for `request`: its own when usable, else the next of this process's.
    static func of(_ request: HTTPRequest) -> String {
        supplied(by: request) ?? prefix + "-" + String(count.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    /// The request's `X-Request-Id`, when it is 1 to 128 characters of letters, digits and
    /// `-_.:+/=@` (what trace and proxy ids are made of); anything else is not repeated into
    /// the log or the answer.
    static func supplied(by request: HTTPRequest) -> String? {
        guard let value = request.header("x-request-id"), (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "-_.:+/=@".utf8.contains(byte)
            })
        else { return nil }
        return value
    }
}
