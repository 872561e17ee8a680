/// The parts of table, column, constraint and function definitions lint's rules look inside:
/// the elements of a `CREATE TABLE`, a column's type, the columns a `CHECK` proves NOT NULL,
/// a `search_path` setting, and the session settings a statement switches off.
extension StatementShape {
    /// The tokens between the parenthesis that opens at `open` and the one that closes it,
    /// split at the commas directly inside it.
    func parenthesizedElements(openingAt open: Int) -> [StatementShape] {
        guard open < tokens.count, tokens[open].text == "(" else { return [] }
        var elements: [StatementShape] = []
        var current: [SQLToken] = []
        var depth = 0
        for token in tokens[open...] {
            if token.kind == .punctuation, token.text == "(" {
                depth += 1
                if depth == 1 { continue }
            }
            if token.kind == .punctuation, token.text == ")" {
                depth -= 1
                if depth == 0 { break }
            }
            if depth == 1, token.kind == .punctuation, token.text == "," {
                elements.append(StatementShape(current))
                current = []
            } else {
                current.append(token)
            }
        }
        if !current.isEmpty { elements.append(StatementShape(current)) }
        return elements
    }

    /// The index after `IF EXISTS` at `index`, or `index` when it is not there.
    func skipIfExists(_ index: Int) -> Int {
        index + 1 < tokens.count && tokens[index].isKeyword("IF") && tokens[index + 1].isKeyword("EXISTS") ? index + 2 : index
    }

    /// The comma-separated names starting at `index` (after `IF EXISTS` when asked; `ONLY` and
    /// a trailing `*` skipped), each as its unqualified part; `index` ends just past the list.
    func nameList(from index: inout Int, skippingIfExists: Bool = false) -> [String] {
        if skippingIfExists { index = skipIfExists(index) }
        var names: [String] = []
        while index < tokens.count {
            if tokens[index].isKeyword("ONLY") { index += 1 }
            guard let name = qualifiedName(at: index) else { break }
            names.append(name.name)
            index = name.end
            if index < tokens.count, tokens[index].text == "*" { index += 1 }
            guard index < tokens.count, tokens[index].text == "," else { break }
            index += 1
        }
        return names
    }

    /// For `CREATE TABLE name (...)`: the table and its column definitions and table
    /// constraints, one shape each (nil for `CREATE TABLE ... AS` and `PARTITION OF`).
    func tableElements() -> (table: String, elements: [StatementShape])? {
        guard let (table, end) = createdTableName(), end < tokens.count, tokens[end].text == "(" else { return nil }
        return (table, parenthesizedElements(openingAt: end))
    }

    private static let constraintStarts: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "EXCLUDE", "LIKE"]

    /// True for a table element (or an `ADD` action's body) that is a constraint, not a column.
    var isConstraintDefinition: Bool {
        guard let first = tokens.first, first.kind == .word else { return false }
        return Self.constraintStarts.contains(first.text.uppercased())
    }

    /// The columns that every `CHECK (...)` of this definition proves NOT NULL: a conjunct
    /// `col IS NOT NULL` at the top of the expression, as PostgreSQL's prover reads it.
    func notNullCheckColumns() -> Set<String> {
        var columns: Set<String> = []
        for (index, token) in tokens.enumerated() where token.isKeyword("CHECK") && index + 1 < tokens.count {
            var expression = parenthesizedElements(openingAt: index + 1).first.map { Array($0.tokens) } ?? []
            guard tokens[index + 1].text == "(", !expression.isEmpty else { continue }
            expression = Self.stripParentheses(expression)
            for conjunct in Self.split(expression, atKeyword: "AND") {
                let bare = Self.stripParentheses(conjunct)
                if bare.count == 4, let column = bare[0].identifier, bare[1].isKeyword("IS"), bare[2].isKeyword("NOT"), bare[3].isKeyword("NULL") {
                    columns.insert(column)
                }
            }
        }
        return columns
    }

    private static func stripParentheses(_ tokens: [SQLToken]) -> [SQLToken] {
        var tokens = tokens
        while tokens.count >= 2, tokens.first?.text == "(", tokens.last?.text == ")", closes(tokens) {
            tokens = Array(tokens.dropFirst().dropLast())
        }
        return tokens
    }

    /// True when the first token's parenthesis closes at the last token.
    private static func closes(_ tokens: [SQLToken]) -> Bool {
        var depth = 0
        for (index, token) in tokens.enumerated() where token.kind == .punctuation {
            if token.text == "(" { depth += 1 }
            if token.text == ")" {
                depth -= 1
                if depth == 0 { return index == tokens.count - 1 }
            }
        }
        return false
    }

    private static func split(_ tokens: [SQLToken], atKeyword keyword: String) -> [[SQLToken]] {
        var parts: [[SQLToken]] = [[]]
        var depth = 0
        for token in tokens {
            if token.kind == .punctuation, token.text == "(" { depth += 1 }
            if token.kind == .punctuation, token.text == ")" { depth -= 1 }
            if depth == 0, token.isKeyword(keyword) {
                parts.append([])
            } else {
                parts[parts.count - 1].append(token)
            }
        }
        return parts
    }

    /// A column type lint advises against, found at `start` (the type's first token), for a
    /// column named `column` whose definition is this shape.
    struct TypeConcern {
        /// Which preference it breaks.
        var kind: Kind
        /// The type's first token, where the finding points.
        var token: SQLToken
        /// The type as written, lowercased (`varchar(20)`, `serial`).
        var written: String

        /// The preferences.
        enum Kind { case varcharLength, fixedChar, timestampWithoutTimeZone, narrowIntegerID, serial }
    }

    private static let narrowIntegers: Set<String> = ["int", "integer", "int4", "int2", "smallint"]
    private static let narrowSerials: Set<String> = ["serial", "serial4", "smallserial", "serial2"]

    /// The type concerns of the type that starts at `start`, for column `column`.
    func typeConcerns(typeAt start: Int, column: String) -> [TypeConcern] {
        var index = start
        if index + 2 < tokens.count, tokens[index + 1].text == ".", tokens[index].identifier == "pg_catalog" { index += 2 }
        guard index < tokens.count, tokens[index].kind == .word else { return [] }
        let token = tokens[index]
        let word = token.text.lowercased()
        func next(_ offset: Int) -> SQLToken? { index + offset < tokens.count ? tokens[index + offset] : nil }
        func written(_ count: Int) -> String {
            tokens[index..<min(tokens.count, index + count)].map { $0.text.lowercased() }.joined(separator: " ")
                .replacingOccurrences(of: " (", with: "(").replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
        }
        switch word {
        case "varchar" where next(1)?.text == "(":
            return [TypeConcern(kind: .varcharLength, token: token, written: written(4))]
        case "character" where next(1)?.isKeyword("VARYING") == true && next(2)?.text == "(":
            return [TypeConcern(kind: .varcharLength, token: token, written: written(5))]
        case "character", "char", "bpchar", "nchar":
            return [TypeConcern(kind: .fixedChar, token: token, written: next(1)?.text == "(" ? written(4) : word)]
        case "timestamp":
            var after = index + 1
            if after < tokens.count, tokens[after].text == "(" { after += 3 }
            let withZone = after + 2 < tokens.count && tokens[after].isKeyword("WITH") && tokens[after + 1].isKeyword("TIME")
            return withZone ? [] : [TypeConcern(kind: .timestampWithoutTimeZone, token: token, written: "timestamp")]
        default:
            break
        }
        var concerns: [TypeConcern] = []
        let isIdentifier =
            column == "id" || column.hasSuffix("_id") || containsSequence(["PRIMARY", "KEY"]) || containsSequence(["REFERENCES"])
            || containsSequence(["IDENTITY"])
        if Self.narrowSerials.contains(word) || (Self.narrowIntegers.contains(word) && isIdentifier) {
            concerns.append(TypeConcern(kind: .narrowIntegerID, token: token, written: word))
        }
        if Self.narrowSerials.contains(word) || ["bigserial", "serial8"].contains(word) {
            concerns.append(TypeConcern(kind: .serial, token: token, written: word))
        }
        return concerns
    }

    /// A function's `search_path` setting, as lint judges it.
    enum SearchPath: Equatable {
        /// `SET search_path FROM CURRENT`: whatever the migration ran with, never pg_temp last.
        case fromCurrent
        /// `SET search_path = a, b, ...`: the schemas, folded as PostgreSQL folds them.
        case schemas([String])

        /// True when pg_temp is named, and named last: a caller's temporary objects come after
        /// everything the function means to use.
        var isSafe: Bool {
            if case .schemas(let schemas) = self { return schemas.last == "pg_temp" }
            return false
        }
    }

    /// The `search_path` set by `SET search_path ...` at the top level of this statement, or
    /// nil when it sets none.
    func searchPath() -> SearchPath? {
        let outer = topLevel()
        guard
            let set = outer.indices.first(where: { outer[$0].isKeyword("SET") && $0 + 1 < outer.count && outer[$0 + 1].identifier == "search_path" })
        else { return nil }
        var index = set + 2
        if index + 1 < outer.count, outer[index].isKeyword("FROM"), outer[index + 1].isKeyword("CURRENT") { return .fromCurrent }
        guard index < outer.count, outer[index].isKeyword("TO") || outer[index].text == "=" else { return .schemas([]) }
        index += 1
        var schemas: [String] = []
        while index < outer.count {
            let token = outer[index]
            switch token.kind {
            case .word, .quotedIdentifier: schemas.append(token.identifier ?? "")
            case .string: schemas.append(token.stringValue ?? "")
            default: return .schemas(schemas)
            }
            guard index + 1 < outer.count, outer[index + 1].text == "," else { break }
            index += 2
        }
        return .schemas(schemas)
    }

    /// For `CREATE [OR REPLACE] FUNCTION|PROCEDURE name`, `ALTER FUNCTION|PROCEDURE|ROUTINE
    /// name` and `DROP FUNCTION|PROCEDURE|ROUTINE [IF EXISTS] name`: the routine's name.
    func routineName() -> String? {
        var index = 1
        if matches(["CREATE", "OR", "REPLACE"]) { index = 3 }
        guard index < tokens.count, tokens[index].isKeyword("FUNCTION") || tokens[index].isKeyword("PROCEDURE") || tokens[index].isKeyword("ROUTINE")
        else { return nil }
        index += 1
        if index + 1 < tokens.count, tokens[index].isKeyword("IF"), tokens[index + 1].isKeyword("EXISTS") { index += 2 }
        return qualifiedName(at: index)?.name
    }

    /// The runner's timeout a `SET`, `RESET` or `DISCARD` statement switches off: `SET x = 0`,
    /// `SET x TO DEFAULT`, `RESET x` and `RESET ALL` / `DISCARD ALL` (which reset both).
    func switchedOffTimeout() -> String? {
        if matches(["RESET", "ALL"]) || matches(["DISCARD", "ALL"]) { return "lock_timeout and statement_timeout" }
        if matches(["RESET"]), tokens.count == 2, let setting = tokens[1].identifier, Self.timeouts.contains(setting) { return setting }
        guard matches(["SET"]) else { return nil }
        var index = 1
        if index < tokens.count, tokens[index].isKeyword("SESSION") || tokens[index].isKeyword("LOCAL") { index += 1 }
        guard index + 2 < tokens.count, let setting = tokens[index].identifier, Self.timeouts.contains(setting),
            tokens[index + 1].isKeyword("TO") || tokens[index + 1].text == "="
        else { return nil }
        if tokens[index + 2].isKeyword("DEFAULT") { return setting }
        let value = tokens[index + 2].text.filter { $0 != "'" }
        return Double(value.prefix { $0.isNumber || $0 == "." }) == 0 ? setting : nil
    }

    private static let timeouts: Set<String> = ["lock_timeout", "statement_timeout"]

    /// The role change a statement makes: `SET [SESSION|LOCAL] ROLE ...`, `RESET ROLE`,
    /// `SET [SESSION|LOCAL] SESSION AUTHORIZATION ...`, `RESET SESSION AUTHORIZATION` or
    /// `DISCARD ALL`, as written (uppercased).
    func roleChange() -> String? {
        if matches(["RESET", "ROLE"]) || matches(["RESET", "SESSION", "AUTHORIZATION"]) || matches(["DISCARD", "ALL"]) {
            return tokens.map { $0.text.uppercased() }.joined(separator: " ")
        }
        guard matches(["SET"]) else { return nil }
        var index = 1
        if matches(["SET", "SESSION", "AUTHORIZATION"]) || matches(["SET", "ROLE"]) {
            index = 1
        } else if index < tokens.count, tokens[index].isKeyword("SESSION") || tokens[index].isKeyword("LOCAL") {
            index += 1
        }
        guard index < tokens.count else { return nil }
        if tokens[index].isKeyword("ROLE")
            || (tokens[index].isKeyword("SESSION") && index + 1 < tokens.count && tokens[index + 1].isKeyword("AUTHORIZATION"))
        {
            return tokens.map { $0.kind == .word ? $0.text.uppercased() : $0.text }.joined(separator: " ")
        }
        return nil
    }
}

extension SQLToken {
    /// The value of a plain `'string'` constant, quotes removed and `''` undoubled.
    var stringValue: String? {
        guard kind == .string, text.hasPrefix("'"), text.hasSuffix("'"), text.count >= 2 else { return nil }
        return String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
    }
}
