import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fake PostgreSQL server on 127.0.0.1 (an ephemeral port) that asks every client for a
/// cleartext password and keeps what it is sent: the attacker's end of a hostile `.env`.
final class PasswordTrap: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    private let socketDescriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var connections = 0
    private var stopped = false

    /// Starts listening and accepting on a thread of its own.
    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socketDescriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptClients() }
    }

    /// The passwords clients sent, and how many clients connected at all.
    var catches: (passwords: [String], connections: Int) {
        lock.withLock { (received, connections) }
    }

    /// Stops accepting.
    func stop() {
        lock.withLock { stopped = true }
        shutdown(socketDescriptor, Int32(SHUT_RDWR))
        close(socketDescriptor)
    }

    private func acceptClients() {
        while !lock.withLock({ stopped }) {
            let client = accept(socketDescriptor, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { connections += 1 }
            if let password = askForPassword(client) { lock.withLock { received.append(password) } }
            close(client)
        }
    }

    /// Answers an SSL request with "no", then the startup message with AuthenticationCleartextPassword,
    /// and returns the password message's text.
    private func askForPassword(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            guard let length = readInt32(client), length >= 8, length < 10_000, let body = readBytes(client, Int(length) - 4) else { return nil }
            let code = body.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            if code == 80_877_103 || code == 80_877_104 {  // SSLRequest, GSSENCRequest
                _ = send(client, "N", 1, 0)
                continue
            }
            break
        }
        let askCleartext: [UInt8] = [UInt8(ascii: "R"), 0, 0, 0, 8, 0, 0, 0, 3]
        _ = askCleartext.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
        guard let kind = readBytes(client, 1), kind == [UInt8(ascii: "p")], let length = readInt32(client), length > 4,
            let password = readBytes(client, Int(length) - 4)
        else { return nil }
        return String(decoding: password.prefix { $0 != 0 }, as: UTF8.self)
    }

    private func readInt32(_ client: Int32) -> Int32? {
        readBytes(client, 4).map { $0.reduce(0) { $0 << 8 | Int32($1) } }
    }

    private func readBytes(_ client: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { recv(client, $0.baseAddress! + filled, count - filled, 0) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
