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
            // The ASCII fast paths' edges: visible ASCII at both ends is kept whole; DEL, a
            // control or a non-ASCII scalar at an end takes the full check.
            "x", "!~", "!a b~", "\u{7F}x\u{7F}", "\u{1F}x", "x\u{85}", "\u{00A0}x", "x\u{2028}",
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
