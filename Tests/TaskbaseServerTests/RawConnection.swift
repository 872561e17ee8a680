import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP connection to the server, for what URLSession cannot do: read an event stream as
/// it arrives, send a request slowly or with oversized headers, or stop reading.
final class RawConnection: @unchecked Sendable {
    private var socket: Int32
    private(set) var received = Data()
    private(set) var closedByPeer = false

    /// Connects to 127.0.0.1:`port` (or `ipv6Loopback`, [::1]:`port`, which URLSession cannot
    /// reach: it refuses an IPv6 literal URL); `receiveBuffer` shrinks the kernel's receive
    /// buffer (a client that stops reading then fills up after a few kilobytes).
    init(port: UInt16, receiveBuffer: Int32? = nil, ipv6Loopback: Bool = false) throws {
        socket = Glibc.socket(ipv6Loopback ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let result: Int32
        if ipv6Loopback {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    /// The port this end of the connection is bound to (IPv4).
    var localPort: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    /// The other end of this connection when the server runs in this process: the socket
    /// among this process's descriptors whose peer is this connection's local port. Nil when
    /// there is none (the server is another process, or has closed it).
    var serverSocket: Int32? {
        let ours = localPort
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        for descriptor in names.compactMap(Int32.init) where descriptor != socket {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let found = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
            }
            if found == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == ours { return descriptor }
        }
        return nil
    }

    /// Sends `request` as it is to 127.0.0.1:`port` and reads until the server closes (or
    /// `limit` passes): the connection, holding what came back and whether it was closed.
    static func exchange(port: UInt16, _ request: String, limit: Duration = .seconds(10)) async throws -> RawConnection {
        let connection = try RawConnection(port: port)
        connection.send(request)
        _ = await connection.readUntilClosed(limit: limit)
        return connection
    }

    /// One GET over IPv6 loopback to the server at `baseURL` (`http://[::1]:PORT`), the
    /// connection closed after it: the status and what came with it.
    static func getOverIPv6(_ baseURL: String, _ path: String, headers: [String: String] = [:]) async throws -> (status: Int, text: String) {
        let port = try #require(baseURL.split(separator: ":").last.flatMap { UInt16($0) }, "\(baseURL)")
        let connection = try RawConnection(port: port, ipv6Loopback: true)
        connection.get(path, headers: headers.merging(["Connection": "close"]) { $1 })
        _ = await connection.readUntilClosed()
        let status = connection.text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, connection.text)
    }

    deinit { if socket >= 0 { close(socket) } }

    /// Hangs up: the server sees the connection end the next time it writes to it.
    func hangUp() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Resets the connection (closed with a zero linger, so the kernel sends RST): the server's
    /// side fails at once, even while it waits to write to a reader that had stopped reading.
    /// Nothing can be read afterwards.
    func reset() {
        guard socket >= 0 else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(socket)
        socket = -1
    }

    /// Sends `text` as it is.
    func send(_ text: String) {
        send(bytes: Array(text.utf8))
    }

    /// Sends `bytes` as they are (a header that is not UTF-8, say).
    func send(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends as much of `bytes` as the connection takes within a second, never blocking past
    /// that: how many bytes went, or nil once the peer has closed or reset the connection.
    func sendWhileOpen(bytes: [UInt8]) -> Int? {
        var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, 1_000) > 0 else { return 0 }
        if descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { return nil }
        let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if count >= 0 { return count }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
    }

    /// A GET of `path` with these headers.
    func get(_ path: String, headers: [String: String] = [:]) {
        send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n")
    }

    /// Reads what has arrived; returns false when nothing had (or the peer closed). It never
    /// blocks a thread: the server under test runs on the same few.
    @discardableResult
    func readAvailable() -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &buffer, buffer.count, 0)
        if count <= 0 {
            closedByPeer = true
            return false
        }
        received.append(contentsOf: buffer[0..<count])
        decodedText = nil
        return true
    }

    /// Reads until `condition` holds on what was received, the peer closes, or `limit` passes.
    /// Every caller expects the condition to come, so it returns as soon as it does; the bound
    /// is generous for a machine loaded by the whole suite (a resumed stream's catch-up beside
    /// 40 writes once took more than 10 s there).
    func read(until condition: (String) -> Bool, limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition(text) { return true }
            if !readAvailable() {
                if closedByPeer { return condition(text) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return condition(text)
    }

    /// Reads until the peer closes the connection (true) or `limit` passes (false).
    func readUntilClosed(limit: Duration = .seconds(30)) async -> Bool {
        _ = await read(until: { _ in false }, limit: limit)
        return closedByPeer
    }

    /// Everything received, as text (decoded once per arrival, not per look).
    var text: String {
        if let decodedText { return decodedText }
        let decoded = String(decoding: received, as: UTF8.self)
        decodedText = decoded
        return decoded
    }
    private var decodedText: String?

    /// How far `changeEvents()` has read `received`, the body it has decoded but not yet split
    /// into events, and the change events found so far: each call reads only what arrived
    /// since, so a test that waits for the n-th of many events costs linear time, not
    /// quadratic (a re-parse of everything per read once held a cooperative thread for seconds
    /// and starved the tests running beside it).
    private var scanned = 0
    private var headersRead = false
    private var chunked = false
    private var chunkLeft = 0
    private var pending: [UInt8] = []
    private var parsed: [(id: Int64, data: String)] = []

    /// The `data:` lines of `event: change` events received so far, decoded: the body is taken
    /// out of chunked encoding first (a chunk may end anywhere, mid-line included), then an
    /// event is a block of lines ended by a blank line.
    func changeEvents() -> [(id: Int64, data: String)] {
        if !headersRead {
            guard let end = received.firstRange(of: Data("\r\n\r\n".utf8)) else { return parsed }
            chunked = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased().contains("transfer-encoding: chunked")
            headersRead = true
            scanned = end.upperBound
        }
        unchunk()
        var start = pending.startIndex
        var index = start
        while index + 1 < pending.endIndex {
            guard pending[index] == UInt8(ascii: "\n"), pending[index + 1] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            if let event = Self.changeEvent(in: pending[start..<index]) { parsed.append(event) }
            index += 2
            start = index
        }
        pending.removeSubrange(..<start)
        return parsed
    }

    /// Moves the body bytes received since the last call to `pending`, out of chunked encoding
    /// when the response uses it (a size line, that many bytes, CRLF; a size line waits until
    /// it is whole).
    private func unchunk() {
        guard chunked else {
            pending.append(contentsOf: received[scanned...])
            scanned = received.endIndex
            return
        }
        while scanned < received.endIndex {
            if chunkLeft > 0 {
                let take = min(chunkLeft, received.endIndex - scanned)
                pending.append(contentsOf: received[scanned..<(scanned + take)])
                scanned += take
                chunkLeft -= take
                continue
            }
            guard let lineEnd = received[scanned...].firstRange(of: Data("\r\n".utf8)) else { return }
            let line = String(decoding: received[scanned..<lineEnd.lowerBound], as: UTF8.self)
            scanned = lineEnd.upperBound
            // The CRLF after a chunk's data reads as an empty line; a size line may carry extensions.
            if let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) { chunkLeft = size }
        }
    }

    /// The change event in one block of lines (its id's sequence, after the team id and `:`),
    /// or nil when it is another kind of block.
    private static func changeEvent(in block: ArraySlice<UInt8>) -> (id: Int64, data: String)? {
        let lines = String(decoding: block, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.contains("event: change"),
            let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int64($0.split(separator: ":").last ?? "") }),
            let data = lines.first(where: { $0.hasPrefix("data: ") })
        else { return nil }
        return (id, String(data.dropFirst(6)))
    }
}
