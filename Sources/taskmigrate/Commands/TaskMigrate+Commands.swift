import Foundation
import Migrations

extension TaskMigrate {
    static func status(_ runner: MigrationRunner, json: Bool) async throws -> ExitCode {
        let plan = try await runner.plan()
        if json {
            print(try StatusDocument(plan: plan).encoded())
            return .ok
        }
        let width = max(4, plan.entries.map(\.name.count).max() ?? 0)
        print("version  \("name".padding(toLength: width, withPad: " ", startingAt: 0))  state         applied_at")
        for entry in plan.entries {
            let applied = entry.record.map { $0.appliedAt.formatted(.iso8601) + ($0.isBaseline ? " (baseline)" : "") } ?? "-"
            let version = String(entry.version)
            let padded = String(repeating: "0", count: max(0, 4 - version.count)) + version
            print([padded.padding(toLength: 7, withPad: " ", startingAt: 0), entry.name.padding(toLength: width, withPad: " ", startingAt: 0),
                   entry.state.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0), applied].joined(separator: "  "))
        }
        let drift = plan.entries.filter(\.state.isDrift).count
        print("\(plan.applied.count) applied, \(plan.pending.count) pending\(drift > 0 ? ", \(drift) drifted (run taskmigrate verify)" : "")")
        return .ok
    }

    static func up(_ runner: MigrationRunner, to target: Int64?, dryRun: Bool) async throws -> ExitCode {
        if dryRun {
            let files = try await runner.pending(upTo: target)
            for file in files {
                print("would apply \(file.fileName) (\(file.runsInTransaction ? "in a transaction" : "no transaction"), \(file.up.count) statement\(file.up.count == 1 ? "" : "s"))")
            }
            if files.isEmpty { print("up to date: nothing to apply") }
            return .ok
        }
        let applied = try await runner.up(to: target)
        for file in applied { print("applied \(file.fileName)") }
        let current = try await runner.plan().currentVersion
        print(applied.isEmpty ? "up to date at version \(current.map(String.init) ?? "none")" : "now at version \(current.map(String.init) ?? "none")")
        return .ok
    }

    static func down(_ runner: MigrationRunner, to target: Int64?) async throws -> ExitCode {
        let rolledBack = try await runner.down(to: target)
        for file in rolledBack { print("rolled back \(file.fileName)") }
        if rolledBack.isEmpty { print("nothing to roll back") }
        return .ok
    }

    static func verify(_ runner: MigrationRunner) async throws -> ExitCode {
        let plan = try await runner.plan()
        try plan.verify()
        print("verified: \(plan.applied.count) applied and unchanged, \(plan.pending.count) pending")
        return .ok
    }

    static func plan(_ runner: MigrationRunner, to target: Int64?) async throws -> ExitCode {
        let files = try await runner.pending(upTo: target)
        if files.isEmpty { print("-- nothing pending") }
        for file in files {
            print("-- \(file.fileName) (\(file.runsInTransaction ? "one transaction with its history row" : "no transaction"); lock_timeout \(runner.settings.lockTimeout), statement_timeout \(runner.settings.statementTimeout))")
            for statement in file.up { print(statement.text) }
            print("")
        }
        return .ok
    }

    static func baseline(_ runner: MigrationRunner, version: Int64) async throws -> ExitCode {
        let recorded = try await runner.baseline(version)
        for file in recorded { print("recorded \(file.fileName) as applied (baseline, not run)") }
        return .ok
    }

    static func lint(_ files: [MigrationFile]) -> ExitCode {
        let findings = files.flatMap { MigrationLinter().lint($0) }
        for finding in findings { print(finding.description) }
        let refused = findings.filter { !$0.isAllowed }.count
        printError("lint: \(files.count) file\(files.count == 1 ? "" : "s"), \(refused) hazard\(refused == 1 ? "" : "s") not allowed, \(findings.count - refused) allowed")
        return refused > 0 ? .inputRejected : .ok
    }
}
