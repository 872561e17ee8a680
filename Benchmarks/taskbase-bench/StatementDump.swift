import Foundation
import PGStore
import TaskCore
import TaskStorePG

/// Writes the exact statements `PostgresTaskStore` sends for one call, so the C, pgbench and Python
/// references replay the same SQL with the same parameters.
///
/// Format (length-prefixed, binary-safe):
///     STATEMENTS <count>
///     SQL <byte length>\n<sql>\n
///     PARAMS <count>\n
///     PARAM <byte length>\n<value>\n   or   NULL\n   (one per parameter)
/// A parameter whose value is the marker `777` is the varying task number: references
/// substitute their own.
enum StatementDump {
    static let numberMarker: Int64 = 777

    static func capture(config: PGConfig, workload: String) async throws -> [PGQuery] {
        let recorder = StatementRecorder()
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1, statementObserver: recorder.record))
        let owner = Workloads.owner
        switch workload {
        case "w1":
            _ = try await service.task(TaskKey(team: try TeamKey(BenchSetup.readTeam), number: numberMarker), as: owner)
        case "w2":
            let team = try await Workloads.freshTeam(service, prefix: "REF")
            _ = try await service.createTask(
                in: team, try TaskDraft(title: "Bench task", notes: "Created by W2", priority: .high, category: "Bench"), as: owner)
        default:
            throw BenchError("no statements to dump for \(workload)")
        }
        return recorder.last
    }

    static func write(_ statements: [PGQuery], to path: String) throws {
        var out = Data()
        func line(_ text: String) { out.append(contentsOf: Array((text + "\n").utf8)) }
        func block(_ tag: String, _ text: String) {
            let bytes = Array(text.utf8)
            line("\(tag) \(bytes.count)")
            out.append(contentsOf: bytes)
            out.append(10)
        }
        line("STATEMENTS \(statements.count)")
        for statement in statements {
            block("SQL", statement.sql)
            let values = statement.parameterTexts
            line("PARAMS \(values.count)")
            for value in values {
                if let value { block("PARAM", value) } else { line("NULL") }
            }
        }
        try out.write(to: URL(fileURLWithPath: path))
    }
}
