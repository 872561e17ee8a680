/// How many terminal columns text occupies: 2 for CJK and emoji, 0 for combining marks and controls.
public enum DisplayWidth {
    /// The columns `text` occupies on a terminal.
    public static func measure(_ text: String) -> Int {
        text.reduce(0) { $0 + measure($1) }
    }

    /// The columns one grapheme cluster occupies.
    public static func measure(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let properties = first.properties
        if properties.isEmojiPresentation || scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch properties.generalCategory {
        case .control, .format, .nonspacingMark, .enclosingMark: return 0
        default: return isWide(first.value) ? 2 : 1
        }
    }

    /// East Asian wide and fullwidth ranges (Hangul, CJK, kana, fullwidth forms, CJK extensions).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
