import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("Type round trips")
struct TypeRoundTripTests {
    /// Sends `value` as a parameter cast to `sqlType` and decodes it back.
    func roundTrip<T: PGEncodable & PGDecodable>(_ value: T?, _ sqlType: String, on connection: PGConnection) async throws -> T? {
        let rows = try await connection.query("SELECT \(value)::\(unsafeSQL: sqlType) AS v")
        return try rows[0].decode(T?.self, "v")
    }

    @Test("integers keep their extremes, and NULL reads back as nil")
    func integers() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            for value in [Int64.min, -1, 0, 1, Int64.max] {
                #expect(try await roundTrip(value, "int8", on: connection) == value)
            }
            for value in [Int32.min, 0, Int32.max] {
                #expect(try await roundTrip(value, "int4", on: connection) == value)
            }
            for value in [Int.min, 42, Int.max] {
                #expect(try await roundTrip(value, "int8", on: connection) == value)
            }
            #expect(try await roundTrip(Int?.none, "int8", on: connection) == nil)
        }
    }

    @Test("doubles keep NaN, ±infinity, extremes and negative zero")
    func doubles() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            for value in [0.0, -0.0, 1.5, .pi, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity] {
                let back = try await roundTrip(value, "float8", on: connection)
                #expect(back == value && back?.sign == value.sign, "\(value)")
            }
            #expect(try await roundTrip(Double.nan, "float8", on: connection)?.isNaN == true)
            #expect(try await roundTrip(Double?.none, "float8", on: connection) == nil)
        }
    }

    @Test("strings: empty, 1 MB, emoji, combining characters and SQL-looking text come back verbatim")
    func strings() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let values = [
                "", " ", "plain", "Robert'); DROP TABLE tasks;--", "quote ' and \" and \\ backslash",
                "emoji 👩‍💻🚀", "combining e\u{301} vs é", "tab\tnew\nline\r\n", "$1 $2 not parameters",
                String(repeating: "x", count: 1 << 20),
            ]
            for value in values {
                #expect(try await roundTrip(value, "text", on: connection) == value)
            }
            #expect(try await roundTrip(String?.none, "text", on: connection) == nil)
        }
    }

    @Test("booleans, UUIDs and bytes round trip")
    func boolUUIDBytes() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            #expect(try await roundTrip(true, "bool", on: connection) == true)
            #expect(try await roundTrip(false, "bool", on: connection) == false)
            let uuid = UUID()
            #expect(try await roundTrip(uuid, "uuid", on: connection) == uuid)
            let bytes = Data((0...255).map { UInt8($0) } + [0, 0, 255])
            #expect(try await roundTrip(bytes, "bytea", on: connection) == bytes)
            #expect(try await roundTrip(Data(), "bytea", on: connection) == Data())
            #expect(try await roundTrip(Data?.none, "bytea", on: connection) == nil)
        }
    }

    @Test("timestamps keep microseconds, before 1970 and after 2100, whatever the session time zone")
    func timestamps() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let values: [Date] = [
                Date(timeIntervalSince1970: 0),
                Date(timeIntervalSince1970: 1_700_000_000.123456),
                Date(timeIntervalSince1970: -1_000_000_000.654321),
                Date(timeIntervalSince1970: -5_000_000_000.5),
                Date(timeIntervalSince1970: 4_200_000_000.000001),
            ]
            for zone in ["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Kiritimati"] {
                try await connection.execute("SELECT set_config('TimeZone', \(zone), false)")
                for value in values {
                    let back = try #require(try await roundTrip(value, "timestamptz", on: connection))
                    let micros = { (date: Date) in (date.timeIntervalSince1970 * 1_000_000).rounded() }
                    #expect(micros(back) == micros(value), "\(value) in \(zone): got \(back)")
                }
                let text = try await connection.query("SELECT '2024-02-29 12:34:56.789012+05:30'::timestamptz AS t")
                let parsed = try text[0].decode(Date.self, "t")
                #expect(parsed.timeIntervalSince1970 == 1_709_190_296.789012)
            }
            #expect(try await roundTrip(Date.distantFuture, "timestamptz", on: connection) == .distantFuture)
        }
    }

    @Test("timestamps sent in binary store what their text form stored: rounding, 2000, BC, far future, infinity, out of range")
    func binaryTimestampsMatchText() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            // Each value, and the text Date parameters were sent as before they went binary.
            let cases: [(seconds: Double, text: String)] = [
                (0, "1970-01-01 00:00:00+00"),
                (0.000_000_5, "1970-01-01 00:00:00+00"),
                (-0.000_000_5, "1970-01-01 00:00:00+00"),
                (0.000_001_5, "1970-01-01 00:00:00.000002+00"),
                (0.000_002_5, "1970-01-01 00:00:00.000003+00"),
                (1_700_000_000.123_456_5, "2023-11-14 22:13:20.123457+00"),
                (-1_000_000_000.654_321, "1938-04-24 22:13:19.345679+00"),
                (-5_000_000_000.5, "1811-07-23 15:06:39.500000+00"),
                (946_684_799.999_999_5, "2000-01-01 00:00:00+00"),
                (946_684_799.999_999, "1999-12-31 23:59:59.999999+00"),
                (946_684_800.000_000_4, "2000-01-01 00:00:00+00"),
                (-62_135_596_800.25, "0001-12-31 23:59:59.750000+00 BC"),
                (-210_866_803_200, "4714-11-24 00:00:00+00 BC"),
                (4_200_000_000.000_001, "2103-02-04 02:40:00.000001+00"),
                (253_402_300_800, "10000-01-01 00:00:00+00"),
                (9_000_000_000_000.5, "287168-08-24 16:00:00.499712+00"),
            ]
            for (seconds, text) in cases {
                let date = Date(timeIntervalSince1970: seconds)
                let query: PGQuery = "SELECT \(date) = \(text)::timestamptz AS same, \(date)::text AS binary, \(text)::timestamptz::text AS text"
                #expect(query.parameterTexts[0] == text, "the text a replay sends for \(seconds)")
                let row = try await connection.query(query)[0]
                let (binary, stored) = (try row.decode(String.self, "binary"), try row.decode(String.self, "text"))
                #expect(try row.decode(Bool.self, "same"), "\(seconds): \(binary) against \(stored)")
            }
            for (date, text) in [(Date.distantFuture, "infinity"), (Date.distantPast, "-infinity")] {
                let query: PGQuery = "SELECT \(date)::text AS t"
                #expect(query.parameterTexts == [text])
                #expect(try await connection.query(query)[0].decode(String.self, "t") == text)
            }
            let tooEarly: PGQuery = "SELECT \(Date(timeIntervalSince1970: -210_866_803_200.5))"
            let binaryError = await #expect(throws: PGError.self) { try await connection.query(tooEarly) }
            let textError = await #expect(throws: PGError.self) {
                try await connection.query("SELECT \("4714-11-23 23:59:59.500000+00 BC")::timestamptz")
            }
            #expect(binaryError?.code == textError?.code)
        }
    }

    @Test("dates: leap days, before 1970, after 2100 and BC")
    func dates() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let values = [
                PGDate(year: 2024, month: 2, day: 29)!, PGDate(year: 1969, month: 12, day: 31)!,
                PGDate(year: 1900, month: 1, day: 1)!, PGDate(year: 2150, month: 6, day: 15)!,
                PGDate(year: 0, month: 3, day: 1)!,
            ]
            for value in values {
                #expect(try await roundTrip(value, "date", on: connection) == value)
            }
            #expect(PGDate(year: 2023, month: 2, day: 29) == nil)
            #expect(PGDate(daysSinceEpoch: PGDate(year: 2000, month: 3, day: 1)!.daysSinceEpoch) == PGDate(year: 2000, month: 3, day: 1))
        }
    }

    @Test("JSON and arrays of text and integers round trip")
    func jsonAndArrays() async throws {
        struct Payload: Codable, Equatable { var name: String; var tags: [String] }
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let payload = Payload(name: "ünï \"q\"", tags: ["a", "b,c"])
            let json = try PGJSON(encoding: payload)
            let back = try #require(try await roundTrip(json, "jsonb", on: connection))
            #expect(try back.decode(as: Payload.self) == payload)
            let texts = ["a", "", "with space", "comma,here", "quote\"", "back\\slash", "NULL", "{braces}", "ü"]
            #expect(try await roundTrip(texts, "text[]", on: connection) == texts)
            #expect(try await roundTrip([String](), "text[]", on: connection) == [])
            let numbers: [Int] = [Int.min, -1, 0, 7, Int.max]
            #expect(try await roundTrip(numbers, "int8[]", on: connection) == numbers)
            let small: [Int32] = [1, 2, 3]
            #expect(try await roundTrip(small, "int4[]", on: connection) == small)
        }
    }

    @Test("rows decode into Decodable structs by column name, optionals and raw enums included")
    func decodableStructs() async throws {
        enum Status: String, Decodable { case open, done }
        struct Row: Decodable, Equatable {
            var id: Int
            var title: String
            var dueDate: PGDate?
            var status: Status
            var notes: String?
        }
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let rows = try await connection.query(
                """
                SELECT * FROM (VALUES (1, 'one', '2025-01-02'::date, 'open', NULL::text),
                                      (2, 'two', NULL::date, 'done', 'n')) AS t(id, title, due_date, status, notes)
                ORDER BY id
                """)
            let decoded = try rows.decode(Row.self, keys: .convertToSnakeCase)
            #expect(
                decoded == [
                    Row(id: 1, title: "one", dueDate: PGDate(year: 2025, month: 1, day: 2), status: .open, notes: nil),
                    Row(id: 2, title: "two", dueDate: nil, status: .done, notes: "n"),
                ])
        }
    }
}
