@testable import CSVImport
import Testing

@Suite("External id registry")
struct ExternalIDRegistryTests {
    @Test("every repeat is found with its first line, through growth and an up-front size alike", arguments: [16, 200_000])
    func repeatsAcrossGrowth(expected: Int) {
        var registry = ExternalIDRegistry(expectedCount: 16)
        registry.reserve(expectedCount: expected)
        for number in 0..<50_000 {
            #expect(registry.register("EXT-\(number)", line: number + 2) == nil)
        }
        for number in stride(from: 0, to: 50_000, by: 997) {
            #expect(registry.register("EXT-\(number)", line: 99_999) == number + 2)
        }
        #expect(registry.register("EXT-50000", line: 7) == nil)
    }
}
