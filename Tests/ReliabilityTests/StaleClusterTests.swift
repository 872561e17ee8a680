import Foundation
import TaskbaseTestSupport
import Testing

/// `scripts/pg` in a checkout made again at the path of an earlier one (a CI folder cloned
/// anew, a worktree added again): the earlier checkout's cluster, still running, must not be
/// used, since its databases hold that checkout's data and migration history.
@Suite("scripts/pg in a checkout made anew where an older one was", .serialized, .timeLimit(.minutes(2)))
struct StaleClusterTests {
    /// The port of the clusters made here: `TASKBASE_STALE_CLUSTER_PORT`, else 25464.
    static let port = ProcessInfo.processInfo.environment["TASKBASE_STALE_CLUSTER_PORT"] ?? "25464"
    static let environment = ["TASKBASE_PG_PORT": port]

    /// How the new checkout is made.
    enum Remade: String, CaseIterable, CustomTestStringConvertible {
        /// A plain clone: no `.local` at all.
        case fresh
        /// With the old `.local` brought back as it was (`cp -a`, a CI cache, a backup restored).
        case carryingLocal
        var testDescription: String { rawValue }
    }

    /// A checkout at `folder` as `scripts/pg` sees one: a git repository with `scripts/pg`, and
    /// `local` (a saved `.local`) copied in with its times kept.
    static func makeCheckout(at folder: URL, carrying local: URL? = nil) async throws {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: PackagePaths.script("pg"), to: folder.appendingPathComponent("scripts/pg"))
        try await command("git", "init", "-q", folder.path)
        if let local { try await command("cp", "-a", local.path, folder.appendingPathComponent(".local").path) }
    }

    /// Runs a command found on PATH; throws unless it exits 0.
    static func command(_ arguments: String...) async throws {
        let outcome = try await BuiltProgram.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: ProcessInfo.processInfo.environment)
        guard outcome.exitCode == 0, !outcome.killedBySignal else {
            throw Scripts.Failed(command: arguments.joined(separator: " "), outcome: outcome)
        }
    }

    @Test(
        "the cluster of an older checkout at the same path, left running, is stopped and made anew: none of its tables is seen",
        arguments: Remade.allCases)
    func newCheckoutGetsAFreshCluster(remade: Remade) async throws {
        let folder = try scratchFolder("stale-cluster")
        let checkout = folder.appendingPathComponent("checkout")
        let pg = checkout.appendingPathComponent("scripts/pg")
        // As root the data directory lives under /tmp, .local/pg-PORT pointing to it.
        var data: String?
        do {
            try await Self.makeCheckout(at: checkout)
            try await Scripts.run(at: pg, ["start"], environment: Self.environment)
            data = try? FileManager.default.destinationOfSymbolicLink(atPath: checkout.appendingPathComponent(".local/pg-\(Self.port)").path)
            try await Scripts.run(at: pg, ["psql", "-q", "-X", "-c", "CREATE TABLE left_by_the_old_checkout ()"], environment: Self.environment)
            let savedLocal = folder.appendingPathComponent("saved-local")
            try await Self.command("cp", "-a", checkout.appendingPathComponent(".local").path, savedLocal.path)
            try FileManager.default.removeItem(at: checkout)
            try await Self.makeCheckout(at: checkout, carrying: remade == .carryingLocal ? savedLocal : nil)

            let status = try await BuiltProgram.run(pg, arguments: ["status"], environment: BuiltProgram.environment(adding: Self.environment))
            #expect(status.exitCode == 3 && status.standardOutput.contains("made by another checkout at this path"), "\(status)")
            let started = try await BuiltProgram.run(pg, arguments: ["start"], environment: BuiltProgram.environment(adding: Self.environment))
            #expect(started.exitCode == 0 && started.standardError.contains("another checkout at this path"), "\(started)")
            let gone = try await Scripts.run(
                at: pg, ["psql", "-X", "-A", "-t", "-c", "SELECT to_regclass('left_by_the_old_checkout') IS NULL"], environment: Self.environment)
            #expect(gone == "t")
            // The same checkout keeps its cluster across stop and start.
            try await Scripts.run(at: pg, ["psql", "-q", "-X", "-c", "CREATE TABLE kept_by_the_new_checkout ()"], environment: Self.environment)
            try await Scripts.run(at: pg, ["stop"], environment: Self.environment)
            try await Scripts.run(at: pg, ["start"], environment: Self.environment)
            let kept = try await Scripts.run(
                at: pg, ["psql", "-X", "-A", "-t", "-c", "SELECT to_regclass('kept_by_the_new_checkout') IS NOT NULL"], environment: Self.environment)
            #expect(kept == "t")
        } catch {
            await Self.cleanUp(folder, checkout: checkout, data: data)
            throw error
        }
        await Self.cleanUp(folder, checkout: checkout, data: data)
    }

    /// Stops whatever server runs on the checkout's cluster, then deletes its data directory
    /// `data` (when outside the checkout) and `folder`.
    static func cleanUp(_ folder: URL, checkout: URL, data: String?) async {
        let pg = checkout.appendingPathComponent("scripts/pg")
        if !FileManager.default.fileExists(atPath: pg.path) { try? await makeCheckout(at: checkout) }
        _ = try? await Scripts.run(at: pg, ["stop"], environment: environment)
        if let data { try? FileManager.default.removeItem(atPath: data) }
        try? FileManager.default.removeItem(at: folder)
    }
}
