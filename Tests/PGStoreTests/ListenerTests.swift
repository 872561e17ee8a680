import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

@Suite("PGListener: many channels on one session")
struct ListenerTests {
    static func channel() -> String { "test_\(UUID().uuidString.prefix(8))" }

    @Test("channels added and dropped while listening: each NOTIFY after listen() returns arrives, none after unlisten")
    func channelsComeAndGo() async throws {
        let (first, second) = (Self.channel(), Self.channel())
        let listener = try await PGListener.connect(TestDatabase.config())
        try await listener.listen(first)
        try await listener.listen(second)
        #expect(listener.channels == [first, second])
        try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
            try await sender.execute("SELECT pg_notify(\(first), 'a'), pg_notify(\(second), 'b')")
        }
        var iterator = listener.notifications.makeAsyncIterator()
        let received = [try await iterator.next(), try await iterator.next()].compactMap { $0.map { "\($0.channel)=\($0.payload)" } }
        #expect(received == ["\(first)=a", "\(second)=b"])
        listener.unlisten(first)
        try await listener.listen(second)  // a round trip after the UNLISTEN: it has run
        try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
            try await sender.execute("SELECT pg_notify(\(first), 'dropped')")
            try await sender.execute("SELECT pg_notify(\(second), 'kept')")
        }
        #expect(try await iterator.next()?.payload == "kept")
        #expect(listener.channels == [second])
        await listener.close()
        #expect(try await iterator.next() == nil)
    }

    @Test("a lost session ends the notifications with an error, and listen() then refuses")
    func lostSession() async throws {
        let listener = try await PGListener.connect(TestDatabase.config())
        try await listener.listen(Self.channel())
        let pid = listener.backendPID
        try await TestDatabase.withConnection { (admin: PGConnection) async throws -> Void in
            try await admin.execute("SELECT pg_terminate_backend(\(pid))")
        }
        await #expect(throws: PGError.self) {
            for try await _ in listener.notifications {}
        }
        await #expect(throws: PGError.self) { try await listener.listen(Self.channel()) }
    }
}
