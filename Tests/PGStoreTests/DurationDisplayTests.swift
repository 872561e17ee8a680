import PGStore
import Testing

@Suite("Durations as people read them")
struct DurationDisplayTests {
    @Test("the largest unit that shows a duration exactly, no limit as none, never 5000ms or 0ms")
    func largestExactUnit() {
        #expect(Duration.seconds(5).displayText == "5s" && Duration.seconds(90).displayText == "90s")
        #expect(Duration.seconds(120).displayText == "2min" && Duration.seconds(7200).displayText == "2h")
        #expect(Duration.milliseconds(250).displayText == "250ms" && Duration.milliseconds(1500).displayText == "1500ms")
        #expect(Duration.zero.displayText == "none")
        #expect(Duration.microseconds(10).displayText == "1ms", "rounded up, as the setting PostgreSQL gets")
        #expect(Duration.seconds(5).postgresSetting == "5000ms", "what SQL gets is unchanged")
    }
}
