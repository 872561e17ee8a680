/// Text from the database made safe to print for a person: a title or name can neither break
/// a line layout nor send escape sequences to the terminal.
enum TerminalText {
    /// `text` with carriage returns, tabs, escapes and other control characters shown as spaces.
    static func clean(_ text: String) -> String {
        String(text.map { $0.unicodeScalars.first?.properties.generalCategory == .control ? " " : $0 })
    }
}
