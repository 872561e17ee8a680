import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("COPY in and out")
struct CopyTests {
    struct ProducerFailure: Error {}

    /// Rows with everything CSV and the text format must escape: quotes, commas, line breaks,
    /// tabs, backslashes, empty strings, NULLs and unicode.
    static func row(_ index: Int) -> [String?] {
        let texts = [
            "plain \(index)", "with \"quotes\" \(index)", "comma, \(index)", "new\nline \(index)",
            "crlf\r\n\(index)", "unicode ñ 日本 🎉 \(index)", "", "tab\there \(index)", "back\\slash \(index)",
        ]
        return [String(index), texts[index % texts.count], index % 7 == 0 ? nil : "note \(index)"]
    }

    /// Long loops in tests give the two shared cores back now and then, so that the
    /// timing-sensitive tests running in parallel are not starved.
    static func shareCores(_ index: Int) async {
        if index % 2_000 == 0 { await Task.yield() }
    }

    static func createTable(_ connection: PGConnection) async throws {
        try await connection.execute("CREATE TEMP TABLE copied (id int PRIMARY KEY, body text NOT NULL, note text)")
    }

    @Test("100,000 rows with quotes, commas, newlines, NULLs and unicode read back identical", arguments: [PGCopyFormat.csv, .text])
    func roundTrip(format: PGCopyFormat) async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await Self.createTable(connection)
            let count = try await connection.copyIn(table: "copied", columns: ["id", "body", "note"], format: format) { writer in
                for index in 0..<100_000 {
                    try await writer.writeRow(Self.row(index))
                    await Self.shareCores(index)
                }
            }
            #expect(count == 100_000)
            let rows = try await connection.query("SELECT id, body, note FROM copied ORDER BY id")
            #expect(rows.count == 100_000)
            var mismatches = 0
            for (index, row) in rows.enumerated() {
                await Self.shareCores(index)
                let expected = Self.row(index)
                let actual = [String(try row.decode(Int.self, "id")), try row.decode(String.self, "body"), try row.decode(String?.self, "note")]
                if actual != expected { mismatches += 1 }
            }
            #expect(mismatches == 0)
        }
    }

    @Test("COPY TO gives back, byte for byte, the CSV that COPY FROM loaded")
    func copyOutMatchesBytes() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await Self.createTable(connection)
            var written: [UInt8] = []
            for index in 0..<100_000 {
                PGCopyFormat.csv.encodeRow(Self.row(index), into: &written)
                await Self.shareCores(index)
            }
            try await connection.copyIn(table: "copied", format: .csv) { writer in
                // Uneven slices: rows split across writes, and one write far larger than a message.
                var offset = 0
                var size = 1
                while offset < written.count {
                    let end = min(offset + size, written.count)
                    try await writer.write(written[offset..<end])
                    offset = end
                    size = size > 1_000_000 ? 7 : size * 3
                }
            }
            var read: [UInt8] = []
            var chunks = 0
            for try await chunk in try await connection.copyOut(unsafeSQL: "SELECT * FROM copied ORDER BY id", format: .csv) {
                read.append(contentsOf: chunk)
                chunks += 1
                await Task.yield()
            }
            #expect(read.count == written.count)
            #expect(read == written)
            #expect(chunks > 1)
            #expect(try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one") == 1)
        }
    }

    @Test("a bad row in the middle aborts with the server's line number and nothing remains")
    func badRow() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await Self.createTable(connection)
            let error = await #expect(throws: PGError.self) {
                try await connection.copyIn(table: "copied", format: .text) { writer in
                    for index in 1...100_000 {
                        await Self.shareCores(index)
                        try await writer.write(index == 50_001 ? "not-a-number\tx\t\\N\n" : "\(index)\tbody\t\\N\n")
                    }
                }
            }
            #expect(error?.code == .invalidTextRepresentation)
            #expect(error?.context?.contains("line 50001") == true, "context: \(error?.context ?? "none")")
            #expect(error?.description.contains("line 50001") == true)
            #expect(try await connection.query("SELECT count(*) AS n FROM copied")[0].decode(Int.self, "n") == 0)
            #expect(connection.transactionStatus == .idle)
        }
    }

    @Test("an error thrown by the producer after 50,000 rows is rethrown, leaves nothing, and the connection works")
    func producerError() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await Self.createTable(connection)
            await #expect(throws: ProducerFailure.self) {
                try await connection.copyIn(table: "copied", format: .csv) { writer in
                    for index in 0..<50_000 {
                        try await writer.writeRow(Self.row(index))
                        await Self.shareCores(index)
                    }
                    throw ProducerFailure()
                }
            }
            #expect(try await connection.query("SELECT count(*) AS n FROM copied")[0].decode(Int.self, "n") == 0)
            #expect(connection.transactionStatus == .idle)
            let count = try await connection.copyIn(table: "copied", format: .csv) { writer in
                try await writer.writeRow(["1", "after", nil])
            }
            #expect(count == 1)
        }
    }

    @Test("table and column names are quoted identifiers, never spliced SQL")
    func quotedIdentifiers() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute(#"CREATE TEMP TABLE "Odd ""Name""; x" ("Mixed Case" text)"#)
            let count = try await connection.copyIn(table: #"Odd "Name"; x"#, columns: ["Mixed Case"], format: .csv) { writer in
                try await writer.writeRow(["kept"])
            }
            #expect(count == 1)
            let error = await #expect(throws: PGError.self) {
                try await connection.copyIn(table: "copied; DROP TABLE x", format: .csv) { _ in }
            }
            #expect(error?.code == .undefinedTable)
            #expect(try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one") == 1)
        }
    }

    @Test("leaving a COPY TO loop early, or cancelling its task, leaves the connection usable")
    func copyOutStopsEarly() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            for try await chunk in try await connection.copyOut(unsafeSQL: "SELECT g FROM generate_series(1, 1000000) g") {
                #expect(!chunk.isEmpty)
                break
            }
            #expect(try await connection.query("SELECT 2 AS two")[0].decode(Int.self, "two") == 2)

            // The server sends nothing until its send buffer fills: the reader waits, then is cancelled.
            let reader = Task {
                var rows = 0
                let slow = try await connection.copyOut(unsafeSQL: "SELECT g, pg_sleep(0.05) FROM generate_series(1, 200) g")
                for try await chunk in slow { rows += chunk.filter { $0 == 0x0A }.count }
                return rows
            }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            reader.cancel()
            await #expect(throws: (any Error).self) { try await reader.value }
            // The copy would run 10 s: 5 s tells a prompt cancel from a finished copy, with room
            // for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await connection.query("SELECT 3 AS three")[0].decode(Int.self, "three") == 3)
        }
    }
}
