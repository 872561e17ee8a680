import CommandLineToolkit
import Foundation
import Testing

@Suite("Streaming JSON arrays")
struct JSONArrayWriterTests {
    struct Row: Encodable {
        var key: String
        var notes: String?
        var labels: [String]
        var due: Date
    }

    private func streamed<T: Encodable>(_ elements: [T], capacity: Int = 8) throws -> String {
        let output = OutputCapture()
        let writer = JSONArrayWriter(bufferCapacity: capacity) { output.writer(String(decoding: $0, as: UTF8.self)) }
        for element in elements { try writer.append(element) }
        try writer.finish()
        return output.text
    }

    @Test("a streamed array is the same text as the whole array encoded at once")
    func sameAsWhole() throws {
        let rows = [
            Row(key: "CORE-1", notes: "multi\nline \"quoted\"", labels: ["a", "b"], due: Date(timeIntervalSince1970: 86_400)),
            Row(key: "CORE-2", notes: nil, labels: [], due: Date(timeIntervalSince1970: 0)),
        ]
        #expect(try streamed(rows) == JSONOutput.encode(rows))
    }

    @Test("an empty stream is an empty array and valid JSON")
    func empty() throws {
        let text = try streamed([Row]())
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] != nil)
        #expect(text.hasSuffix("]\n"))
    }
}
