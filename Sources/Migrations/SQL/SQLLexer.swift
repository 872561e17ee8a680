/// Splits PostgreSQL SQL into tokens, honouring the constructs inside which a `;` or a `--`
/// means nothing: single-quoted and `E''` strings, quoted identifiers, dollar quotes, nested
/// block comments and line comments.
public struct SQLLexer: Sendable {
    private let scalars: [Unicode.Scalar]

    /// A lexer over the whole of `source`.
    public init(_ source: SourceText) {
        scalars = source.scalars
    }

    /// Every token of the source, comments included, in order.
    public func tokens() -> [SQLToken] {
        var tokens: [SQLToken] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace {
                index += 1
                continue
            }
            let token = next(at: index, previous: tokens.last)
            tokens.append(token)
            index = token.endOffset
        }
        return tokens
    }

    private func next(at start: Int, previous: SQLToken?) -> SQLToken {
        let scalar = scalars[start]
        let following = peek(start + 1)
        switch scalar {
        case "-" where following == "-":
            var end = start
            while end < scalars.count, scalars[end] != "\n" { end += 1 }
            return token(.lineComment, start, end)
        case "/" where following == "*":
            return blockComment(at: start)
        case "'":
            let escapes = previous.map { $0.kind == .word && $0.endOffset == start && $0.text.uppercased() == "E" } ?? false
            return quoted(at: start, quote: "'", kind: .string, backslashEscapes: escapes)
        case "\"":
            return quoted(at: start, quote: "\"", kind: .quotedIdentifier, backslashEscapes: false)
        case "$":
            if let following, isASCIIDigit(following) {
                var end = start + 1
                while end < scalars.count, isASCIIDigit(scalars[end]) { end += 1 }
                return token(.parameter, start, end)
            }
            if let dollar = dollarQuoted(at: start) { return dollar }
            return token(.punctuation, start, start + 1)
        default:
            if isIdentifierStart(scalar) {
                var end = start + 1
                while end < scalars.count, isIdentifierPart(scalars[end]) { end += 1 }
                return token(.word, start, end)
            }
            if isASCIIDigit(scalar) || (scalar == "." && following.map(isASCIIDigit) == true) {
                var end = start + 1
                while end < scalars.count, isASCIIDigit(scalars[end]) || scalars[end] == "." || scalars[end] == "_" || isIdentifierStart(scalars[end])
                {
                    end += 1
                }
                return token(.number, start, end)
            }
            return token(.punctuation, start, start + 1)
        }
    }

    private func blockComment(at start: Int) -> SQLToken {
        var depth = 0
        var index = start
        while index < scalars.count {
            if scalars[index] == "/", peek(index + 1) == "*" {
                depth += 1
                index += 2
            } else if scalars[index] == "*", peek(index + 1) == "/" {
                depth -= 1
                index += 2
                if depth == 0 { return token(.blockComment, start, index) }
            } else {
                index += 1
            }
        }
        var unterminated = token(.blockComment, start, scalars.count)
        unterminated.isUnterminated = true
        return unterminated
    }

    private func quoted(at start: Int, quote: Unicode.Scalar, kind: SQLToken.Kind, backslashEscapes: Bool) -> SQLToken {
        var index = start + 1
        var content = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            if backslashEscapes, scalar == "\\", index + 1 < scalars.count {
                content.append(scalar)
                content.append(scalars[index + 1])
                index += 2
            } else if scalar == quote {
                if peek(index + 1) == quote {
                    content.append(quote)
                    index += 2
                } else {
                    var result = token(kind, start, index + 1)
                    if kind == .quotedIdentifier { result.text = String(content) }
                    return result
                }
            } else {
                content.append(scalar)
                index += 1
            }
        }
        var unterminated = token(kind, start, scalars.count)
        unterminated.isUnterminated = true
        return unterminated
    }

    private func dollarQuoted(at start: Int) -> SQLToken? {
        if start > 0, isIdentifierPart(scalars[start - 1]) { return nil }
        var index = start + 1
        while index < scalars.count, scalars[index] != "$" {
            let isTagScalar = index == start + 1 ? isIdentifierStart(scalars[index]) : isIdentifierPart(scalars[index]) && scalars[index] != "$"
            guard isTagScalar else { return nil }
            index += 1
        }
        guard index < scalars.count else { return nil }
        let delimiter = Array(scalars[start...index])
        var search = index + 1
        while search + delimiter.count <= scalars.count {
            if scalars[search] == "$", Array(scalars[search..<search + delimiter.count]) == delimiter {
                return token(.dollarString, start, search + delimiter.count)
            }
            search += 1
        }
        var unterminated = token(.dollarString, start, scalars.count)
        unterminated.isUnterminated = true
        return unterminated
    }

    private func token(_ kind: SQLToken.Kind, _ start: Int, _ end: Int) -> SQLToken {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<end])
        return SQLToken(kind: kind, text: String(text), offset: start, length: end - start)
    }

    private func peek(_ index: Int) -> Unicode.Scalar? {
        index < scalars.count ? scalars[index] : nil
    }

    private func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar >= "0" && scalar <= "9"
    }

    private func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_" || scalar.value >= 0x80
    }

    private func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || isASCIIDigit(scalar) || scalar == "$"
    }
}
