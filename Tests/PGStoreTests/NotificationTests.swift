import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("LISTEN and NOTIFY")
struct NotificationTests {
    static func channel() -> String { "test_\(UUID().uuidString.prefix(8))" }

    @Test("1,000 notifications sent in a burst all arrive, in order")
    func burstInOrder() async throws {
        let channel = Self.channel()
        let listener = try await PGConnection.connect(TestDatabase.config())
        defer { Task { await listener.close() } }
        let stream = try await listener.notifications(on: channel)
        try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
            for batch in 0..<2 {
                let queries: [PGQuery] = (0..<500).map { "SELECT pg_notify(\(channel), \(String(batch * 500 + $0)))" }
                _ = try await sender.pipeline(queries)
            }
        }
        var payloads: [String] = []
        for try await notification in stream {
            payloads.append(notification.payload)
            if payloads.count == 1_000 { break }
        }
        #expect(payloads == (0..<1_000).map(String.init))
    }

    @Test("notifications that arrive while a statement runs are kept for the stream")
    func bufferedDuringQuery() async throws {
        let channel = Self.channel()
        try await TestDatabase.withConnection { (listener: PGConnection) async throws -> Void in
            try await listener.execute(PGQuery(unsafeSQL: "LISTEN \(PGQuery.quoteIdentifier(channel))"))
            let sender = Task {
                try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
                    try await Task.sleep(for: .milliseconds(100))
                    try await sender.execute("SELECT pg_notify(\(channel), \("during"))")
                }
            }
            try await listener.execute("SELECT pg_sleep(0.4)")
            try await sender.value
            var iterator = try await listener.notifications(on: channel).makeAsyncIterator()
            #expect(try await iterator.next()?.payload == "during")
        }
    }

    @Test("cancelling the consuming task runs UNLISTEN and frees the connection")
    func cancelUnlistens() async throws {
        let channel = Self.channel()
        try await TestDatabase.withConnection { (listener: PGConnection) async throws -> Void in
            let stream = try await listener.notifications(on: channel)
            let consumer = Task {
                var received = 0
                for try await _ in stream { received += 1 }
                return received
            }
            try await Task.sleep(for: .milliseconds(200))
            consumer.cancel()
            #expect(try await consumer.value == 0)
            let channels = try await listener.query("SELECT count(*) AS n FROM pg_listening_channels()")
            #expect(try channels[0].decode(Int.self, "n") == 0)
        }
    }

    @Test("leaving the loop frees the connection; UNLISTEN runs before its next statement")
    func breakUnlistens() async throws {
        let channel = Self.channel()
        try await TestDatabase.withConnection { (listener: PGConnection) async throws -> Void in
            try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
                let stream = try await listener.notifications(on: channel)
                try await sender.execute("SELECT pg_notify(\(channel), \("one"))")
                for try await notification in stream {
                    #expect(notification.payload == "one")
                    break
                }
            }
            let channels = try await listener.query("SELECT count(*) AS n FROM pg_listening_channels()")
            #expect(try channels[0].decode(Int.self, "n") == 0)
        }
    }
}
