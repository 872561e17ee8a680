import Foundation
import TaskCore
import Testing

@Suite("Trimming spaces")
struct SpaceTrimmingTests {
    @Test(
        "spaces and tabs are trimmed at both ends exactly as Foundation trims whitespace, and nothing else",
        arguments: [
            "", " ", "\t \t", "CORE-42", "  CORE-42\t", "\u{00A0}core\u{3000}", "\u{2009}a b\u{202F}", "\nnewline\n", "\r\n x \r\n",
            "é ", " 😀", "\u{200B}zero width\u{200B}", "\u{FEFF}bom", "a\u{0301} ", " \u{1680}ogham",
        ])
    func trims(text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(Substring(text).trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
    }
}

@Suite("Trimmed spaces are Foundation's whitespace")
struct TrimmedSpaceSetTests {
    @Test("every Unicode scalar is a trimmed space exactly when CharacterSet.whitespaces holds it")
    func everyScalar() {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.isTrimmedSpace != CharacterSet.whitespaces.contains(scalar) { differing.append(value) }
        }
        #expect(differing.isEmpty, "differ: \(differing.prefix(10).map { String($0, radix: 16) })")
    }
}
