import Foundation
import TaskCore
import Testing

@testable import TaskbaseWire

@Suite("JSON written without the encoder")
struct JSONWriterTests {
    /// Every ASCII character (the control characters, quote, backslash and slash among them),
    /// DEL, the line and paragraph separators, a BOM, accents and an emoji.
    static let awkward: String = {
        var text = ""
        for value in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        return text + "\u{2028}\u{2029}\u{FEFF}é😀 \u{1B}[31m‮"
    }()

    static func task(title: String, notes: String, assignee: UserID?, stated: Bool, at micros: Int64) -> TaskDocument {
        let time = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        let item = TaskItem(
            id: TaskID(42), teamID: TeamID(3), key: TaskKey(team: try! TeamKey("CORE"), number: 7), title: title, notes: notes,
            status: .inProgress, priority: .urgent, dueDate: assignee == nil ? nil : try! CalendarDate(iso: "2026-12-24", field: "due"),
            assigneeID: assignee, category: assignee == nil ? nil : "Back end", externalID: assignee == nil ? nil : "ext/\"7\"",
            createdBy: UserID(1), createdAt: time, updatedBy: UserID(2), updatedAt: time.addingTimeInterval(0.000_123), version: 9)
        let users = UserDirectory(
            users: [
                UserID(1): User(id: UserID(1), email: "ann@example.com", displayName: "Ann", isDisabled: false, createdAt: time),
                UserID(2): User(id: UserID(2), email: "bo\\b@example.com", displayName: "Bo", isDisabled: false, createdAt: time),
                UserID(5): User(id: UserID(5), email: "cy@example.com", displayName: "Cy", isDisabled: false, createdAt: time),
            ])
        var document = TaskDocument(item, users: users, today: try! CalendarDate(iso: "2026-12-25", field: "today"))
        if !stated {
            document.assigneeID = nil
            document.createdByID = nil
            document.updatedByID = nil
        }
        return document
    }

    static let documents: [TaskDocument] = [
        task(title: "Ship it", notes: "", assignee: nil, stated: true, at: 1_773_144_000_000_000),
        task(title: awkward, notes: "two\nlines\tand \"quotes\" / slashes", assignee: UserID(5), stated: true, at: -1_500_001),
        task(title: "x", notes: awkward, assignee: UserID(5), stated: false, at: 0),
        task(title: "", notes: "\u{0}", assignee: UserID(99), stated: true, at: 253_402_300_799_999_999),
    ]

    @Test("a task document is written byte for byte as the encoder writes it", arguments: documents.indices)
    func taskDocument(index: Int) throws {
        let document = Self.documents[index]
        #expect(document.jsonBytes == Array(try WireJSON.makeEncoder().encode(document)))
    }

    @Test("a page of tasks, empty or not, with or without a cursor, is written as the encoder writes it")
    func page() throws {
        for page in [
            TaskPageDocument(tasks: Self.documents, nextCursor: JSONNullable("abc/+=")),
            TaskPageDocument(tasks: [], nextCursor: JSONNullable(nil)),
            TaskPageDocument(tasks: [Self.documents[1]], nextCursor: JSONNullable(Self.awkward)),
        ] {
            #expect(page.jsonBytes == Array(try WireJSON.makeEncoder().encode(page)))
        }
    }

    @Test("numbers are written as the encoder writes them", arguments: [0.0, 1.0, 12.0, 2.5, 0.001, 1e-7, 0.1 + 0.2, 1e21, -3.25, 1234.567])
    func numbers(value: Double) throws {
        let integer = Int64(value.rounded(.down).clamped(to: -1e18...1e18))
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("double")
        writer.double(value)
        writer.key("int")
        writer.int(integer)
        writer.key("list")
        writer.beginArray()
        for element in [Int64.min, 0, 7, Int64.max] {
            writer.element()
            writer.int(element)
        }
        writer.endArray()
        writer.endObject()
        let expected = try WireJSON.makeEncoder().encode(WrittenNumbers(double: value, int: integer, list: [Int64.min, 0, 7, Int64.max]))
        #expect(writer.bytes == Array(expected))
    }

    @Test("times are worked out from the day count exactly as Foundation's ISO 8601 formatter writes them, Julian years before 1600 included")
    func times() {
        var generator = SystemRandomNumberGenerator()
        var micros: [Int64] = [
            0, -1, 1, 951_782_400_000_000, 951_868_799_999_999, 4_107_542_400_000_000, -62_135_596_800_000_000,
            -62_135_596_800_000_001, 253_402_300_799_999_999, 253_402_300_800_000_000, 1_773_144_059_999_999, -2_208_988_800_000_000,
        ]
        // A Double holds every microsecond within ±2^53 µs of 1970 (the years 1685 to 2255).
        for _ in 0..<2_000 { micros.append(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator)) }
        for _ in 0..<200 { micros.append(Int64.random(in: -62_135_596_800_000_000...253_402_300_799_999_999, using: &generator)) }
        var compared = 0
        for value in micros {
            let (whole, fraction) = value.quotientAndRemainder(dividingBy: 1_000_000)
            let (seconds, remainder) = fraction < 0 ? (whole - 1, fraction + 1_000_000) : (whole, fraction)
            let date = Date(timeIntervalSince1970: Double(value) / 1_000_000)
            let rounded = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
            guard rounded == value else { continue }  // beyond a Double's microseconds
            #expect(WireDate.text(date) == WireDate.foundationText(whole: seconds, fraction: remainder), "\(value)")
            compared += 1
        }
        #expect(compared > 1_500)  // some microseconds do not survive the division by a million
    }
}

/// A document the encoder writes for `numbers`.
private struct WrittenNumbers: Encodable {
    var double: Double
    var int: Int64
    var list: [Int64]
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
