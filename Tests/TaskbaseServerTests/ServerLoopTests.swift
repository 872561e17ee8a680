import Foundation
import PGStore
import Synchronization
@testable import TaskbaseServer
import TaskbaseTestSupport
import Testing

@Suite("Requests served on the I/O thread")
struct ServerLoopTests {
    @Test("a request's handler runs on the I/O thread; a spooled body's (an import's) on the global executor; both are answered")
    func whereHandlersRun() async throws {
        let onThread = Mutex<[String: Bool]>([:])
        let server = try HTTPServer.start(
            port: 0, bodyPolicy: { _, path in HTTPBodyPolicy(spoolsToFile: path == "/spool") }
        ) { request in
            let here = IOReactor.shared.isCurrentThread
            try? await Task.sleep(for: .milliseconds(5))
            onThread.withLock { $0[request.path] = here && IOReactor.shared.isCurrentThread }
            return .empty(204)
        }
        let plain = try RawConnection(port: server.port)
        plain.get("/plain")
        #expect(await plain.read(until: { $0.hasPrefix("HTTP/1.1 204") }))
        let spooled = try RawConnection(port: server.port)
        spooled.send("POST /spool HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello")
        #expect(await spooled.read(until: { $0.hasPrefix("HTTP/1.1 204") }))
        #expect(onThread.withLock { $0 } == ["/plain": true, "/spool": false])
        await server.shutdown(grace: .seconds(1))
    }

    @Test("a handler of a body over loopBodyBytes runs on the global executor, one of a smaller body on the I/O thread")
    func largeBodiesLeaveTheLoop() async throws {
        let onThread = Mutex<[String: Bool]>([:])
        let server = try HTTPServer.start(port: 0, limits: HTTPServerLimits(loopBodyBytes: 1_000)) { request in
            onThread.withLock { $0[request.path] = IOReactor.shared.isCurrentThread && request.body.count > 0 }
            return .empty(204)
        }
        for (path, size) in [("/small", 1_000), ("/large", 1_001)] {
            let connection = try RawConnection(port: server.port)
            connection.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(size)\r\n\r\n" + String(repeating: "x", count: size))
            #expect(await connection.read(until: { $0.hasPrefix("HTTP/1.1 204") }), "\(path): \(connection.text.prefix(200))")
        }
        #expect(onThread.withLock { $0 } == ["/small": true, "/large": false])
        await server.shutdown(grace: .seconds(1))
    }

    @Test("64 connections with requests in flight at once are all answered, on keep-alive, round after round")
    func manyConnections() async throws {
        let server = try HTTPServer.start(port: 0) { request in
            try? await Task.sleep(for: .milliseconds(1))
            return .empty(204)
        }
        let connections = try (0..<64).map { _ in try RawConnection(port: server.port) }
        for round in 1...5 {
            for connection in connections { connection.get("/round") }
            for connection in connections {
                #expect(
                    await connection.read(until: { $0.components(separatedBy: "HTTP/1.1 204").count - 1 >= round }),
                    "round \(round): \(connection.text.suffix(200))")
            }
        }
        await server.shutdown(grace: .seconds(1))
    }
}
