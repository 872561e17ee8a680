import Foundation
import TaskCore
import TaskbaseWire
import Testing

@Suite("Times on the wire")
struct WireDateTests {
    @Test(
        "a time the service made comes back as the same Date, to the microsecond",
        arguments: [1_773_144_000_000_000, 1_773_144_000_001_000, 1_773_144_000_123_456, 1_773_144_059_999_999, -1_500_000, 0] as [Int64])
    func roundTrip(micros: Int64) throws {
        let date = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        let data = try WireJSON.makeEncoder().encode([date])
        #expect(try WireJSON.makeDecoder().decode([Date].self, from: data) == [date])
        #expect(TaskClock.fixed(date).now() == date)
    }

    @Test("six fractional digits are written, and whole seconds or fewer digits are read")
    func format() {
        let date = Date(timeIntervalSince1970: 1_773_144_000.001)
        #expect(WireDate.text(date) == "2026-03-10T12:00:00.001000Z")
        #expect(WireDate.date("2026-03-10T12:00:00Z") == Date(timeIntervalSince1970: 1_773_144_000))
        #expect(WireDate.date("2026-03-10T12:00:00.5Z") == Date(timeIntervalSince1970: 1_773_144_000.5))
        #expect(WireDate.date("2026-03-10T12:00:00.1234567Z") == nil)
        #expect(WireDate.date("2026-03-10T12:00:00+01:00") == nil)
    }
}
