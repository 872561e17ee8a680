import Foundation
import PGStore
import TaskCore
import TaskStorePG
import TaskbaseClient

// taskbase-bench: the Taskbase side of scripts/bench. Every subcommand prints one JSON
// Measurement on stdout; scripts/bench runs it interleaved with the references.
//
//   taskbase-bench setup MIGRATIONS_DIR [LIST_TEAM_SIZE]
//   taskbase-bench w1|w2|w3 COUNT
//   taskbase-bench w1-pgstore COUNT          W1's statements through PGStore alone (no service, no pool)
//   taskbase-bench w5 COUNT
//   taskbase-bench w6 CLIENTS POOL SECONDS
//   taskbase-bench w7-router CLIENTS POOL SECONDS   W7's GET through taskserve's router, no HTTP
//                                                  (the token in TASKBASE_BENCH_TOKEN)
//   taskbase-bench w7-route-memory COUNT     W7's route over the in-memory store, one call at a
//                                            time, beside the service's read alone (no database)
//   taskbase-bench w8-update COUNT           W8's change through TaskService, no HTTP
//   taskbase-bench team KEY                  a fresh team owned by the bench user (for W4)
//   taskbase-bench dump w1|w2 FILE
//   taskbase-bench client-export URL TEAM file|memory FILE   W10's export through the Swift
//                                            client, to FILE by a download or in memory first
//                                            (the token in TASKBASE_BENCH_TOKEN)
let arguments = Array(CommandLine.arguments.dropFirst())
func argument(_ index: Int, _ fallback: Int) -> Int { index < arguments.count ? Int(arguments[index]) ?? fallback : fallback }

do {
    let config = try PGConfig.fromEnvironment()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    func emit(_ measurement: Measurement) throws {
        print(String(decoding: try encoder.encode(measurement), as: UTF8.self))
    }
    switch arguments.first {
    case "setup":
        try await BenchSetup.run(config: config, migrations: arguments.count > 1 ? arguments[1] : "migrations", listTeamSize: argument(2, 0))
    case "w1": try emit(try await Workloads.pointReads(config: config, count: argument(1, 20_000)))
    case "w1-pgstore": try emit(try await Workloads.pointReadStatements(config: config, count: argument(1, 20_000)))
    case "w2": try emit(try await Workloads.singleWrites(config: config, count: argument(1, 20_000)))
    case "w3": try emit(try await Workloads.batchWrites(config: config, count: argument(1, 20_000)))
    case "w5": try emit(try await Workloads.listPages(config: config, count: argument(1, 200)))
    case "w6":
        try emit(
            try await Workloads.concurrentReads(
                config: config, clients: argument(1, 64), pool: argument(2, 8), duration: .seconds(argument(3, 10))))
    case "w7-router":
        guard let token = ProcessInfo.processInfo.environment["TASKBASE_BENCH_TOKEN"] else {
            throw BenchError("w7-router reads the API token from TASKBASE_BENCH_TOKEN")
        }
        try emit(
            try await RouteWorkloads.routerReads(
                config: config, clients: argument(1, 64), pool: argument(2, 8), duration: .seconds(argument(3, 10)), token: token))
    case "w7-route-memory": try emit(try await RouteWorkloads.routeOverMemory(count: argument(1, 100_000)))
    case "w8-update": try emit(try await RouteWorkloads.updates(config: config, count: argument(1, 20_000)))
    case "team":
        guard arguments.count == 2 else { throw BenchError("usage: taskbase-bench team KEY") }
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1))
        _ = try await service.createTeam(key: arguments[1], name: "Bench \(arguments[1])", as: Workloads.owner)
    case "dump":
        guard arguments.count == 3 else { throw BenchError("usage: taskbase-bench dump w1|w2 FILE") }
        try StatementDump.write(try await StatementDump.capture(config: config, workload: arguments[1]), to: arguments[2])
    case "client-export":
        guard arguments.count == 5, let url = URL(string: arguments[1]), ["file", "memory"].contains(arguments[3]) else {
            throw BenchError("usage: taskbase-bench client-export URL TEAM file|memory FILE")
        }
        guard let token = ProcessInfo.processInfo.environment["TASKBASE_BENCH_TOKEN"] else {
            throw BenchError("client-export reads the API token from TASKBASE_BENCH_TOKEN")
        }
        let client = TaskbaseClient(baseURL: url, token: token)
        let team = try TeamKey(arguments[2]), destination = URL(fileURLWithPath: arguments[4])
        if arguments[3] == "file" {
            try await client.exportTasks(of: team, to: destination)
        } else {
            try await client.exportTasks(of: team).write(to: destination)
        }
    default:
        throw BenchError(
            "usage: taskbase-bench setup|w1|w1-pgstore|w2|w3|w5|w6|w7-router|w7-route-memory|w8-update|team|dump|client-export ... (see the comment at the top of Benchmarks/taskbase-bench/main.swift)"
        )
    }
} catch {
    FileHandle.standardError.write(Data("taskbase-bench: error: \(error)\n".utf8))
    exit(1)
}
