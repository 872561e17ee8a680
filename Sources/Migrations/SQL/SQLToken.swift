/// One lexical token of PostgreSQL's SQL, located by Unicode scalar offset: the unit in which
/// the server counts an error's position in a UTF-8 database.
public struct SQLToken: Sendable, Equatable {
    /// What the token is, as far as statement splitting and lint need to know.
    public enum Kind: Sendable, Equatable {
        /// A keyword or unquoted identifier.
        case word
        /// A `"double quoted"` identifier (text without the quotes, `""` undoubled).
        case quotedIdentifier
        /// A `'string'`, `E'string'` or other quote-delimited constant.
        case string
        /// A `$tag$ ... $tag$` constant.
        case dollarString
        /// A numeric constant.
        case number
        /// A `$1` positional parameter.
        case parameter
        /// An operator or punctuation character such as `;`, `(`, `,`.
        case punctuation
        /// A `-- comment` up to the end of its line.
        case lineComment
        /// A `/* comment */`, possibly nested.
        case blockComment
    }

    /// The token's kind.
    public var kind: Kind
    /// The token's source text (for quoted identifiers, the name it denotes).
    public var text: String
    /// Offset of its first scalar in the source.
    public var offset: Int
    /// Number of scalars it spans in the source.
    public var length: Int
    /// True for a quote, dollar quote or block comment that the source never closes.
    public var isUnterminated: Bool = false

    /// True for comments, which carry no meaning for the server.
    public var isComment: Bool { kind == .lineComment || kind == .blockComment }

    /// The offset just past the token.
    public var endOffset: Int { offset + length }

    /// True when the token is the keyword `keyword` (compared case-insensitively).
    public func isKeyword(_ keyword: String) -> Bool {
        kind == .word && text.uppercased() == keyword
    }

    /// The identifier a word or quoted identifier names, folded as PostgreSQL folds it.
    public var identifier: String? {
        switch kind {
        case .word: return text.lowercased()
        case .quotedIdentifier: return text
        default: return nil
        }
    }
}
