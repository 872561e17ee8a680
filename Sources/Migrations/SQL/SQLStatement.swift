/// One statement of a migration, as the runner sends it and lint reads it.
public struct SQLStatement: Sendable, Equatable {
    /// The statement's text from its first token through its terminating `;` (if any).
    public var text: String
    /// Scalar offset of `text` in the file: add a server error's `position - 1` to find the spot.
    public var offset: Int
    /// The tokens of the statement, comments included.
    public var tokens: [SQLToken]

    /// The tokens that mean something to the server: no comments, no terminating `;`.
    public var codeTokens: [SQLToken] {
        var code = tokens.filter { !$0.isComment }
        if code.last?.text == ";" { code.removeLast() }
        return code
    }
}

/// Groups tokens into statements at each top-level `;`, as psql does: a `;` inside parentheses,
/// or inside the `BEGIN ... END` body of a `CREATE FUNCTION/PROCEDURE ... BEGIN ATOMIC`, does not
/// end the statement.
public struct SQLStatementSplitter: Sendable {
    private let source: SourceText

    /// A splitter that takes statement text from `source`.
    public init(source: SourceText) {
        self.source = source
    }

    /// The statements among `tokens`; a trailing statement without `;` counts too.
    public func statements(_ tokens: some Collection<SQLToken>) -> [SQLStatement] {
        var statements: [SQLStatement] = []
        var current: [SQLToken] = []
        var parenthesisDepth = 0
        var beginDepth = 0
        var leadingWords: [String] = []

        func finish() {
            if let first = current.first(where: { !$0.isComment }), let last = current.last {
                let start = first.offset
                let trimmed = Array(current.drop { $0.offset < start })
                statements.append(SQLStatement(text: source.text(start..<last.endOffset), offset: start, tokens: trimmed))
            }
            current = []
            parenthesisDepth = 0
            beginDepth = 0
            leadingWords = []
        }

        for token in tokens {
            current.append(token)
            switch token.kind {
            case .punctuation:
                if token.text == "(" { parenthesisDepth += 1 }
                if token.text == ")" { parenthesisDepth = max(0, parenthesisDepth - 1) }
                if token.text == ";", parenthesisDepth == 0, beginDepth == 0 { finish() }
            case .word:
                let word = token.text.uppercased()
                if leadingWords.count < 5 { leadingWords.append(word) }
                guard parenthesisDepth == 0, Self.definesRoutine(leadingWords) else { continue }
                if word == "BEGIN" {
                    beginDepth += 1
                } else if word == "CASE", beginDepth > 0 {
                    beginDepth += 1
                } else if word == "END", beginDepth > 0 {
                    beginDepth -= 1
                }
            default:
                continue
            }
        }
        finish()
        return statements
    }

    private static func definesRoutine(_ words: [String]) -> Bool {
        guard words.first == "CREATE", words.count >= 2 else { return false }
        let rest = words[1] == "OR" ? Array(words.dropFirst(3)) : Array(words.dropFirst(1))
        guard let kind = rest.first else { return false }
        return kind == "FUNCTION" || kind == "PROCEDURE"
    }
}
