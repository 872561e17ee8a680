import Hashing
import Foundation

extension MigrationFile {
    /// Parses a migration file from its bytes. `path` is only used in messages.
    ///
    /// Directives are line comments: `-- migrate:up`, `-- migrate:down`,
    /// `-- migrate:no-transaction` and `-- lint:allow RULE[,RULE] [reason]`. An unknown
    /// directive, a misplaced section marker or an unterminated quote is an error naming the line.
    public static func parse(fileName: String, path: String, bytes: [UInt8]) throws(MigrationFileError) -> MigrationFile {
        let fileNameParts: MigrationFileName
        switch MigrationFileName.parse(fileName) {
        case .success(let parsed):
            fileNameParts = parsed
        case .failure(var error):
            error.path = path
            throw error
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw MigrationFileError(path: path, line: Self.lineOfFirstInvalidUTF8(bytes), message: "the file is not valid UTF-8; save it as UTF-8")
        }
        // A byte order mark (editors on Windows write one) is not SQL; the checksum still
        // covers the file's bytes as they are.
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        let source = SourceText(text)
        let tokens = SQLLexer(source).tokens()
        func fail(_ token: SQLToken, _ message: String) -> MigrationFileError {
            MigrationFileError(path: path, line: source.location(ofOffset: token.offset).line, message: message)
        }

        if let open = tokens.first(where: \.isUnterminated) {
            throw fail(open, "this \(open.kind == .blockComment ? "comment" : "quoted text") is never closed")
        }

        var upMarker: Int?
        var downMarker: Int?
        var runsInTransaction = true
        var allowed: Set<LintRule> = []
        for (index, token) in tokens.enumerated() where token.kind == .lineComment {
            guard let directive = Directive(comment: token.text) else { continue }
            switch directive {
            case .up:
                guard upMarker == nil else { throw fail(token, "a second -- migrate:up marker") }
                guard downMarker == nil else { throw fail(token, "-- migrate:up must come before -- migrate:down") }
                upMarker = index
            case .down:
                guard downMarker == nil else { throw fail(token, "a second -- migrate:down marker") }
                downMarker = index
            case .noTransaction:
                runsInTransaction = false
            case .allow(let rules):
                guard !rules.isEmpty else {
                    throw fail(token, "-- lint:allow names no rule; the rules are: \(LintRule.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                for rule in rules {
                    guard let known = LintRule(rawValue: rule) else {
                        throw fail(
                            token, "unknown lint rule \"\(rule)\"; the rules are: \(LintRule.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    allowed.insert(known)
                }
            case .unknown(let text):
                throw fail(
                    token, "unknown directive \"-- \(text)\"; known: -- migrate:up, -- migrate:down, -- migrate:no-transaction, -- lint:allow RULE")
            }
        }

        let upStart = upMarker.map { $0 + 1 } ?? 0
        let upEnd = downMarker ?? tokens.count
        if let upMarker, let stray = tokens[..<upMarker].first(where: { !$0.isComment }) {
            throw fail(stray, "SQL before the -- migrate:up marker; put it inside a section")
        }
        if upMarker == nil, let downMarker, let stray = tokens[..<downMarker].first(where: { !$0.isComment }) {
            throw fail(stray, "SQL before -- migrate:down without a -- migrate:up marker; start the file with -- migrate:up")
        }
        let splitter = SQLStatementSplitter(source: source)
        let up = splitter.statements(tokens[upStart..<upEnd])
        let down = downMarker.map { splitter.statements(tokens[($0 + 1)...]) }
        if runsInTransaction, let control = (up + (down ?? [])).lazy.compactMap(\.codeTokens.first).first(where: Self.controlsTransaction) {
            throw fail(
                control,
                "\(control.text.uppercased()) inside a migration would split it from its history row; the runner wraps each file in one transaction, so remove it (or mark the file -- migrate:no-transaction)"
            )
        }
        return MigrationFile(
            version: fileNameParts.version,
            name: fileNameParts.name,
            fileName: fileName,
            path: path,
            checksum: SHA256.hexDigest(of: bytes),
            statementsFingerprint: Self.statementsFingerprint(tokens),
            source: source,
            up: up,
            down: down,
            runsInTransaction: runsInTransaction,
            allowedLintRules: allowed
        )
    }

    /// SHA-256 of what the file means: every token but comments, each with its kind, and the
    /// directive comments (they decide sections, transactions and lint). Unchanged by any edit
    /// of comments, spacing or line breaks; changed by any edit of SQL or of a directive.
    private static func statementsFingerprint(_ tokens: [SQLToken]) -> String {
        var text = ""
        for token in tokens where !token.isComment || (token.kind == .lineComment && Directive(comment: token.text) != nil) {
            let kind: String
            switch token.kind {
            case .word: kind = "w"
            case .quotedIdentifier: kind = "q"
            case .string: kind = "s"
            case .dollarString: kind = "d"
            case .number: kind = "n"
            case .parameter: kind = "p"
            case .punctuation: kind = "o"
            case .lineComment: kind = "c"
            case .blockComment: kind = "b"
            }
            let value = token.kind == .lineComment ? token.text.trimmingCharacters(in: .whitespaces) : token.text
            text += "\(kind)\(value.utf8.count):\(value)\n"
        }
        return SHA256.hexDigest(of: Array(text.utf8))
    }

    private static func lineOfFirstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return bytes[..<offset].count { $0 == UInt8(ascii: "\n") } + 1
    }

    private static func controlsTransaction(_ token: SQLToken) -> Bool {
        ["BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT"].contains { token.isKeyword($0) }
    }

    private enum Directive {
        case up, down, noTransaction
        case allow([String])
        case unknown(String)

        init?(comment: String) {
            let text = comment.dropFirst(2).trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("migrate:") || text.hasPrefix("lint:") else { return nil }
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            switch words.first {
            case "migrate:up" where words.count == 1: self = .up
            case "migrate:down" where words.count == 1: self = .down
            case "migrate:no-transaction" where words.count == 1: self = .noTransaction
            case "lint:allow":
                var rules: [String] = []
                for word in words.dropFirst() {
                    let parts = word.split(separator: ",").map(String.init)
                    guard rules.isEmpty || parts.allSatisfy({ LintRule(rawValue: $0) != nil }) else { break }
                    rules.append(contentsOf: parts)
                }
                self = .allow(rules)
            default: self = .unknown(String(text))
            }
        }
    }
}
