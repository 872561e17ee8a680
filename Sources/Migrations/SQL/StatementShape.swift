/// The code tokens of a statement (or of one ALTER TABLE action) with the small pattern
/// matches lint's rules and the runner's index clean-up are written in.
struct StatementShape {
    /// The tokens, without comments or the final `;`.
    let tokens: [SQLToken]

    init(_ tokens: [SQLToken]) {
        self.tokens = tokens
    }

    /// True when the statement starts with `keywords`.
    func matches(_ keywords: [String]) -> Bool {
        guard tokens.count >= keywords.count else { return false }
        return zip(tokens, keywords).allSatisfy { $0.isKeyword($1) }
    }

    /// True when `keywords` occur in a row outside any parentheses.
    func containsSequence(_ keywords: [String]) -> Bool {
        let outer = topLevel()
        guard outer.count >= keywords.count else { return false }
        return (0...(outer.count - keywords.count)).contains { start in
            zip(outer[start...], keywords).allSatisfy { $0.isKeyword($1) }
        }
    }

    /// The table a `CREATE TABLE` makes.
    func createdTable() -> String? {
        createdTableName()?.name
    }

    /// The table a `CREATE TABLE` makes, and the index of the token after its name.
    func createdTableName() -> (name: String, end: Int)? {
        var index = 0
        guard tokens.first?.isKeyword("CREATE") == true else { return nil }
        index = 1
        while index < tokens.count, ["GLOBAL", "LOCAL", "TEMP", "TEMPORARY", "UNLOGGED"].contains(tokens[index].text.uppercased()) { index += 1 }
        guard index < tokens.count, tokens[index].isKeyword("TABLE") else { return nil }
        index = skipIfNotExists(index + 1)
        return qualifiedName(at: index).map { ($0.name, $0.end) }
    }

    /// The table a `CREATE INDEX` is built on.
    func indexedTable() -> String? {
        guard let on = topLevelIndex(of: "ON") else { return nil }
        var index = on + 1
        if index < tokens.count, tokens[index].isKeyword("ONLY") { index += 1 }
        return qualifiedName(at: index)?.name
    }

    /// For `CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] name ON [ONLY] table`: the index's
    /// name and the table's name parts, each folded as PostgreSQL folds identifiers.
    func concurrentIndexTarget() -> (index: String, table: [String])? {
        var index = matches(["CREATE", "UNIQUE", "INDEX", "CONCURRENTLY"]) ? 4 : matches(["CREATE", "INDEX", "CONCURRENTLY"]) ? 3 : -1
        guard index > 0 else { return nil }
        index = skipIfNotExists(index)
        guard index < tokens.count, !tokens[index].isKeyword("ON"), let name = qualifiedName(at: index),
            name.end < tokens.count, tokens[name.end].isKeyword("ON")
        else { return nil }
        var tableStart = name.end + 1
        if tableStart < tokens.count, tokens[tableStart].isKeyword("ONLY") { tableStart += 1 }
        guard let table = qualifiedName(at: tableStart) else { return nil }
        return (name.name, table.parts)
    }

    /// For `ALTER TABLE name action, action, ...`: the table and each action.
    func alterTableActions() -> (String, [StatementShape])? {
        guard matches(["ALTER", "TABLE"]) else { return nil }
        var index = 2
        if index + 1 < tokens.count, tokens[index].isKeyword("IF"), tokens[index + 1].isKeyword("EXISTS") { index += 2 }
        if index < tokens.count, tokens[index].isKeyword("ONLY") { index += 1 }
        guard let (table, _, end) = qualifiedName(at: index) else { return nil }
        var actions: [StatementShape] = []
        var current: [SQLToken] = []
        var depth = 0
        for token in tokens[end...] {
            if token.text == "(" { depth += 1 }
            if token.text == ")" { depth -= 1 }
            if token.text == ",", depth == 0, token.kind == .punctuation {
                actions.append(StatementShape(current))
                current = []
            } else if !(current.isEmpty && token.text == "*") {
                current.append(token)
            }
        }
        actions.append(StatementShape(current))
        return (table, actions)
    }

    private static let volatileFunctions: Set<String> = [
        "random", "clock_timestamp", "timeofday", "gen_random_uuid", "uuid_generate_v1", "uuid_generate_v1mc",
        "uuid_generate_v4", "nextval", "txid_current", "pg_current_xact_id",
    ]
    private static let serialTypes: Set<String> = ["SERIAL", "BIGSERIAL", "SMALLSERIAL", "SERIAL2", "SERIAL4", "SERIAL8"]

    /// For an `ADD COLUMN` action: what makes the new column's value differ per row, if anything.
    func volatileValueSource() -> String? {
        if let serial = tokens.first(where: { $0.kind == .word && Self.serialTypes.contains($0.text.uppercased()) }) {
            return "type \(serial.text.lowercased())"
        }
        if containsSequence(["GENERATED"]) {
            if containsSequence(["IDENTITY"]) { return "GENERATED ... AS IDENTITY" }
            if containsSequence(["STORED"]) { return "a STORED generated expression" }
        }
        guard let start = topLevelIndex(of: "DEFAULT") else { return nil }
        for index in (start + 1)..<tokens.count where index + 1 < tokens.count && tokens[index + 1].text == "(" {
            if let name = tokens[index].identifier, Self.volatileFunctions.contains(name) {
                return "DEFAULT \(name)(), a volatile function,"
            }
        }
        return nil
    }

    func topLevel() -> [SQLToken] {
        var depth = 0
        var outer: [SQLToken] = []
        for token in tokens {
            if token.kind == .punctuation, token.text == "(" { depth += 1 }
            if depth == 0 { outer.append(token) }
            if token.kind == .punctuation, token.text == ")" { depth = max(0, depth - 1) }
        }
        return outer
    }

    func topLevelIndex(of keyword: String) -> Int? {
        var depth = 0
        for (index, token) in tokens.enumerated() {
            if token.kind == .punctuation, token.text == "(" { depth += 1 }
            if token.kind == .punctuation, token.text == ")" { depth = max(0, depth - 1) }
            if depth == 0, token.isKeyword(keyword) { return index }
        }
        return nil
    }

    func skipIfNotExists(_ index: Int) -> Int {
        guard index + 2 < tokens.count, tokens[index].isKeyword("IF"), tokens[index + 1].isKeyword("NOT"), tokens[index + 2].isKeyword("EXISTS")
        else {
            return index
        }
        return index + 3
    }

    /// The dotted name at `index`: its parts, its last part, and the index after the name.
    func qualifiedName(at start: Int) -> (name: String, parts: [String], end: Int)? {
        guard start < tokens.count, let first = tokens[start].identifier else { return nil }
        var parts = [first]
        var index = start + 1
        while index + 1 < tokens.count, tokens[index].text == ".", let part = tokens[index + 1].identifier {
            parts.append(part)
            index += 2
        }
        return (parts[parts.count - 1], parts, index)
    }
}
