import CommandLineToolkit
import Foundation
import Testing

@Suite("JSON output")
struct JSONOutputTests {
    struct Task: Encodable {
        var title: String
        var key: String
        var due: Date
        var category: String?
        var url: String
    }

    @Test("keys are sorted, dates are ISO 8601, slashes unescaped, one document with a newline")
    func stableDocument() throws {
        let task = Task(title: "Ship", key: "CORE-1", due: Date(timeIntervalSince1970: 0), category: nil, url: "a/b")
        #expect(
            try JSONOutput.encode(task) == """
                {
                  "due" : "1970-01-01T00:00:00Z",
                  "key" : "CORE-1",
                  "title" : "Ship",
                  "url" : "a/b"
                }

                """)
    }

    @Test("the same value always encodes to the same text")
    func deterministic() throws {
        let values = ["b": 1, "a": 2, "c": 3]
        let first = try JSONOutput.encode(values)
        for _ in 0..<5 { #expect(try JSONOutput.encode(values) == first) }
        #expect(first.range(of: "\"a\"")!.lowerBound < first.range(of: "\"b\"")!.lowerBound)
    }
}
