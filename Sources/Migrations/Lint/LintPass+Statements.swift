/// The rules about whole statements: blocking maintenance, destructive statements, session
/// settings that escape the runner, enum values, and SECURITY DEFINER functions.
extension LintPass {
    private static let writeBlockingLockModes: Set<String> = ["SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"]

    func lintBlocking(_ words: StatementShape, first: SQLToken, in context: inout FileContext) {
        let concurrently = words.tokens.contains { $0.isKeyword("CONCURRENTLY") }
        if words.matches(["CREATE", "MATERIALIZED", "VIEW"]) {
            var index = words.skipIfNotExists(3)
            if let name = words.nameList(from: &index).first { context.createdViews.insert(name) }
        }
        if words.matches(["REINDEX"]), !concurrently {
            context.report(
                .reindexNotConcurrently, first,
                "REINDEX blocks writes to the table, and reads that use the index, for the whole rebuild; use REINDEX ... CONCURRENTLY alone in a -- migrate:no-transaction file"
            )
        }
        if words.matches(["REFRESH", "MATERIALIZED", "VIEW"]), !concurrently {
            var index = 3
            let view = words.nameList(from: &index).first ?? "the view"
            if !context.createdViews.contains(view) {
                context.report(
                    .refreshNotConcurrently, first,
                    "REFRESH MATERIALIZED VIEW \(view) holds ACCESS EXCLUSIVE, blocking every read of it, for the whole refresh; use REFRESH MATERIALIZED VIEW CONCURRENTLY (it needs a unique index)"
                )
            }
        }
        if words.matches(["VACUUM"]), words.tokens.contains(where: { $0.isKeyword("FULL") }) {
            context.report(
                .vacuumFull, first,
                "VACUUM FULL rewrites the table under ACCESS EXCLUSIVE, blocking reads and writes for the whole rewrite; run plain VACUUM (or pg_repack) as maintenance, not in a migration"
            )
        }
        if words.matches(["CLUSTER"]) {
            context.report(
                .cluster, first,
                "CLUSTER rewrites the table under ACCESS EXCLUSIVE, blocking reads and writes for the whole rewrite; leave the order alone, or use pg_repack --order-by as maintenance"
            )
        }
        if words.matches(["LOCK"]) {
            var index = words.tokens.count > 1 && words.tokens[1].isKeyword("TABLE") ? 2 : 1
            let tables = words.nameList(from: &index)
            let mode: String
            if let open = words.topLevelIndex(of: "IN"), let close = words.topLevelIndex(of: "MODE"), open < close {
                mode = words.tokens[(open + 1)..<close].map { $0.text.uppercased() }.joined(separator: " ")
            } else {
                mode = "ACCESS EXCLUSIVE"
            }
            if Self.writeBlockingLockModes.contains(mode), !tables.allSatisfy(context.createdTables.contains) {
                context.report(
                    .lockTable, first,
                    "LOCK TABLE \(tables.joined(separator: ", ")) IN \(mode) MODE blocks \(mode == "ACCESS EXCLUSIVE" ? "reads and writes" : "writes") until the migration commits; let each statement take the lock it needs"
                )
            }
        }
    }

    func lintBreaking(_ words: StatementShape, first: SQLToken, in context: inout FileContext) {
        var dropped = 2
        if words.matches(["DROP", "TABLE"]), !words.nameList(from: &dropped, skippingIfExists: true).allSatisfy(context.createdTables.contains) {
            context.report(
                .dropTable, first,
                "DROP TABLE breaks every deployed program that still uses the table and loses its rows; stop using it first, drop it in a later release"
            )
        }
        if words.matches(["TRUNCATE"]) {
            var index = words.tokens.count > 1 && words.tokens[1].isKeyword("TABLE") ? 2 : 1
            let tables = words.nameList(from: &index)
            if !tables.allSatisfy(context.createdTables.contains) {
                let cascade = words.containsSequence(["CASCADE"]) ? ", and with CASCADE every row of every table that references it," : ""
                context.report(
                    .truncate, first,
                    "TRUNCATE \(tables.joined(separator: ", ")) deletes every row\(cascade) under ACCESS EXCLUSIVE, for good; DELETE the rows you mean with a WHERE clause in a reviewed script"
                )
            }
        }
        if let kind = Self.droppedObjectKind(words) {
            var index = kind.split(separator: " ").count + 1
            let names = words.nameList(from: &index, skippingIfExists: true)
            context.report(
                .dropObject, first,
                "DROP \(kind) \(names.joined(separator: ", ")) breaks every deployed program (and policy or view) that still uses it, for good; stop using it first, drop it in a later release"
            )
        }
        if words.matches(["DROP", "DATABASE"]) {
            context.report(.dropDatabase, first, "DROP DATABASE loses a whole database for good; that is an operator's act, not a migration")
        }
        if words.matches(["DROP", "SCHEMA"]) {
            context.report(
                .dropSchema, first,
                "DROP SCHEMA loses the schema (with CASCADE, every table and row in it) for good; drop the objects you mean one by one, after code stopped using them"
            )
        }
    }

    private static let droppableKinds = [
        "MATERIALIZED VIEW", "VIEW", "FUNCTION", "PROCEDURE", "ROUTINE", "TYPE", "DOMAIN", "SEQUENCE", "EXTENSION",
    ]

    /// `VIEW`, `FUNCTION`, ... for a `DROP` of an object deployed code may use.
    private static func droppedObjectKind(_ words: StatementShape) -> String? {
        guard words.matches(["DROP"]) else { return nil }
        return droppableKinds.first { words.matches(["DROP"] + $0.split(separator: " ").map(String.init)) }
    }

    /// `ALTER DOMAIN d ADD CONSTRAINT ... CHECK` without NOT VALID checks every column of the domain.
    func lintDomain(_ words: StatementShape, first: SQLToken, in context: inout FileContext) {
        guard words.matches(["ALTER", "DOMAIN"]), words.containsSequence(["ADD"]), !words.containsSequence(["NOT", "VALID"]) else { return }
        var index = 2
        let domain = words.nameList(from: &index).first ?? "the domain"
        context.report(
            .constraintWithoutNotValid, first,
            "ALTER DOMAIN \(domain) ADD CONSTRAINT checks every row of every table with a column of the domain while holding their locks; add it NOT VALID, then ALTER DOMAIN ... VALIDATE CONSTRAINT in a later migration"
        )
    }

    func lintSession(_ words: StatementShape, first: SQLToken, in context: inout FileContext) {
        if let setting = words.switchedOffTimeout() {
            context.report(
                .timeoutDisabled, first,
                "\(words.tokens.map { $0.text }.joined(separator: " ")) sets the runner's \(setting) to 0 (no limit) for the rest of the migration, so a statement queued behind a long transaction waits forever; leave the timeouts to --lock-timeout/--statement-timeout"
            )
        }
        if let change = words.roleChange() {
            context.report(
                .roleChanged, first,
                "\(change) leaves the role the runner set (taskbase_owner): objects created after it belong to the login or another role, for good, and later migrations cannot alter them; remove it"
            )
        }
    }

    /// `ALTER TYPE t ADD VALUE 'v'` records `v`; a later `'v'` in the same transactional file
    /// is reported (PostgreSQL refuses to use a value before the transaction that added it commits).
    func lintEnumUse(_ words: StatementShape, in context: inout FileContext) {
        guard context.file.runsInTransaction else { return }
        var reported: Set<String> = []
        for token in words.tokens {
            guard let value = token.stringValue, let type = context.addedEnumValues[value], reported.insert(value).inserted else { continue }
            context.report(
                .enumValueUsedInTransaction, token,
                "'\(value)' was added to enum \(type) earlier in this transaction, and PostgreSQL refuses to use a new value before it commits (55P04), so the migration fails; use it in a later migration"
            )
        }
        guard words.matches(["ALTER", "TYPE"]), let add = words.topLevelIndex(of: "ADD"), add + 1 < words.tokens.count,
            words.tokens[add + 1].isKeyword("VALUE")
        else { return }
        let index = words.skipIfNotExists(add + 2)
        var nameIndex = 2
        let type = words.nameList(from: &nameIndex).first ?? "?"
        if index < words.tokens.count, let value = words.tokens[index].stringValue {
            context.addedEnumValues[value] = type
        }
    }

    /// Tracks each routine's SECURITY DEFINER and search_path through CREATE, ALTER and DROP;
    /// `finish` reports those still unsafe at the end.
    mutating func lintRoutine(_ words: StatementShape, first: SQLToken, in context: FileContext) {
        guard let name = words.routineName() else { return }
        if words.matches(["DROP"]) {
            routines[name] = nil
            return
        }
        let path = words.searchPath()
        if words.matches(["CREATE"]) {
            let isDefiner = words.containsSequence(["SECURITY", "DEFINER"])
            var state = RoutineState(isDefiner: isDefiner, isPathSafe: path?.isSafe ?? false)
            if isDefiner, path?.isSafe != true { state.origin = context.finding(.securityDefinerSearchPath, first, Self.definerReason(name, path)) }
            routines[name] = state
            return
        }
        guard words.matches(["ALTER"]) else { return }
        var state = routines[name] ?? RoutineState(isDefiner: false, isPathSafe: nil)
        let wasUnsafe = state.isDefiner && state.isPathSafe == false
        if words.containsSequence(["SECURITY", "DEFINER"]) { state.isDefiner = true }
        if words.containsSequence(["SECURITY", "INVOKER"]) { state.isDefiner = false }
        if let path { state.isPathSafe = path.isSafe }
        if words.containsSequence(["RESET", "ALL"])
            || words.tokens.indices.contains(where: {
                words.tokens[$0].isKeyword("RESET") && $0 + 1 < words.tokens.count && words.tokens[$0 + 1].identifier == "search_path"
            })
        {
            state.isPathSafe = false
        }
        if state.isDefiner, state.isPathSafe == false, !wasUnsafe {
            state.origin = context.finding(.securityDefinerSearchPath, first, Self.definerReason(name, path))
        }
        routines[name] = state
    }

    private static func definerReason(_ name: String, _ path: StatementShape.SearchPath?) -> String {
        let setting: String
        switch path {
        case nil: setting = "sets no search_path"
        case .fromCurrent?: setting = "takes search_path FROM CURRENT (the migration's path, without pg_temp)"
        case .schemas(let schemas)?:
            setting = "sets search_path \(schemas.isEmpty ? "to nothing" : schemas.joined(separator: ", ")) without pg_temp last"
        }
        return
            "SECURITY DEFINER function \(name) runs with its owner's rights but \(setting), so pg_temp (searched first unless named last) lets any caller's temporary table or function shadow what it uses, for as long as the function exists; add SET search_path = pg_catalog, public, pg_temp (an applied file cannot be edited: a later migration's ALTER FUNCTION \(name) SET search_path = pg_catalog, public, pg_temp fixes it, and lint then stops reporting this)"
    }
}
