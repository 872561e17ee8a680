import Foundation

/// A loopback TCP socket on a free port. Listening, it completes TCP handshakes and never
/// answers (a server that hangs); closed, its port refuses connections (a server that is down).
public final class LoopbackSocket {
    public let port: Int
    private var descriptor: Int32

    public init(listening: Bool) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        if listening { listen(descriptor, 1) }
        var length = size
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        if !listening { close() }
    }

    /// A port nothing listens on.
    public static func closedPort() -> Int { LoopbackSocket(listening: false).port }

    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
