import Foundation
import TaskCore
import TaskStorePG
import TaskbaseTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("taskctl watch and export, as processes against PostgreSQL")
struct WatchAndExportTests {
    @Test("watch in the background prints changes made by another process; Ctrl-C exits 0 and leaves no listener")
    func watch() async throws {
        let fixture = try await Fixture.make()
        let watcher = try await BackgroundTaskctl(["watch", "--team", fixture.team], as: fixture.viewer)
        defer { watcher.terminate() }
        try await watcher.waitFor("watching team \(fixture.team)", onStandardError: true)
        let key = try await fixture.addTask("Seen live", as: fixture.member)
        try await watcher.waitFor("created  \(key)  v1  \(fixture.member)  Seen live\n")
        try await fixture.expectSuccess(["task", "done", key], as: fixture.admin)
        try await watcher.waitFor("updated  \(key)  v2  \(fixture.admin)  Seen live\n")
        try await ChangeFeedListeners.wait(for: 1, of: fixture.team)
        #expect(await watcher.interrupt() == 0)
        #expect(watcher.standardError == "watching team \(fixture.team); Ctrl-C to stop\n")
        try await ChangeFeedListeners.wait(for: 0, of: fixture.team)
    }

    @Test("watch --json prints one JSON object per change")
    func watchJSON() async throws {
        let fixture = try await Fixture.make()
        let watcher = try await BackgroundTaskctl(["--json", "watch", "-t", fixture.team], as: fixture.member)
        defer { watcher.terminate() }
        try await watcher.waitFor("watching", onStandardError: true)
        let key = try await fixture.addTask("Structured")
        try await fixture.expectSuccess(["task", "delete", key], as: fixture.member)
        try await watcher.waitFor(#""kind":"deleted""#)
        #expect(await watcher.interrupt() == 0)
        let lines = watcher.standardOutput.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 2)
        #expect(lines.first??["kind"] as? String == "created" && lines.first??["key"] as? String == key)
        #expect(lines.first??["actor"] as? String == fixture.member)
        #expect(lines.last??["title"] is NSNull)
    }

    @Test("a viewer removed from the team while watching is refused at the next read: watch exits 4")
    func removedWatcherIsRefused() async throws {
        let fixture = try await Fixture.make()
        let watcher = try await BackgroundTaskctl(["watch", "--team", fixture.team], as: fixture.viewer)
        defer { watcher.terminate() }
        try await watcher.waitFor("watching team \(fixture.team)", onStandardError: true)
        try await fixture.expectSuccess(["team", "remove-member", fixture.team, fixture.viewer], as: fixture.admin)
        _ = try await fixture.addTask("Not for the removed", as: fixture.member)
        #expect(await watcher.waitForExit() == 4)
        #expect(!watcher.standardOutput.contains("Not for the removed"))
    }

    @Test("watch --after SEQ prints every change logged after it, then live ones, without gaps")
    func watchResumes() async throws {
        let fixture = try await Fixture.make()
        let first = try await fixture.addTask("First")
        let second = try await fixture.addTask("Second")
        let watcher = try await BackgroundTaskctl(["--json", "watch", "-t", fixture.team, "--after", "1"], as: fixture.viewer)
        defer { watcher.terminate() }
        try await watcher.waitFor(#""sequence":2"#)
        let third = try await fixture.addTask("Third")
        try await watcher.waitFor(#""sequence":3"#)
        #expect(await watcher.interrupt() == 0)
        let keys = watcher.standardOutput.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["key"] as? String
        }
        #expect(keys == [second, third])
        #expect(!keys.contains(first))
    }

    @Test("watch by an outsider is refused before it starts")
    func watchRefused() async throws {
        let fixture = try await Fixture.make()
        try await fixture.expectFailure(1, ["watch", "--team", fixture.team], as: fixture.outsider)
    }

    @Test("export writes the importer's CSV, or a JSON array, for any member")
    func export() async throws {
        let fixture = try await Fixture.make()
        let first = try await fixture.addTask(
            "Ship, \"now\"", ["--notes", "two\nlines", "--due", "2030-02-01", "--assignee", fixture.member, "--category", "Ops"])
        _ = try await fixture.addTask("Imported", ["--external-id", "JIRA-9", "--priority", "low"])
        let csv = try await fixture.expectSuccess(["export", "--team", fixture.team], as: fixture.viewer).standardOutput
        #expect(
            csv == """
                External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category\r
                \(first),"Ship, ""now""\",\"two
                lines",open,none,2030-02-01,\(fixture.member),Ops\r
                JIRA-9,Imported,,open,low,,,\r

                """)
        let json = try await fixture.expectSuccess(["export", "-t", fixture.team, "--format", "json"], as: fixture.viewer).objects()
        #expect(json.compactMap { $0["key"] as? String } == [first, "\(fixture.team)-2"])
        #expect(json.last?["external_id"] as? String == "JIRA-9")
        try await fixture.expectFailure(2, ["--json", "export", "-t", fixture.team], as: fixture.viewer)
        try await fixture.expectFailure(1, ["export", "-t", fixture.team], as: fixture.outsider)
    }

    @Test("export --output FILE writes stdout's bytes into FILE only once whole, says how many, and keeps FILE's permissions")
    func exportToFile() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.addTask("Ship, \"now\"", ["--notes", "two\nlines"])
        let folder1 = try scratchFolder("taskctl-export-one")
        defer { try? FileManager.default.removeItem(at: folder1) }
        let one = try await fixture.run(["export", "-t", fixture.team, "-o", folder1.appendingPathComponent("one.csv").path], as: fixture.viewer)
        #expect(one.exitCode == 0 && one.standardError == "exported 1 task to \(folder1.appendingPathComponent("one.csv").path)\n", "\(one)")
        _ = try await fixture.addTask("Imported", ["--external-id", "JIRA-9"])
        let folder = try scratchFolder("taskctl-export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try await fixture.expectSuccess(["export", "-t", fixture.team], as: fixture.viewer)
        let stdout = plain.standardOutput
        let file = folder.appendingPathComponent("tasks.csv")
        try Data("last week's export\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        // `-o -` is stdout, as `-` is stdin to taskimport: no file named "-" in the working folder.
        let dash = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("-")
        defer { try? FileManager.default.removeItem(at: dash) }
        let toStdout = try await fixture.run(["export", "-t", fixture.team, "-o", "-"], as: fixture.viewer)
        #expect(toStdout.exitCode == 0 && toStdout.standardOutput == stdout && toStdout.standardError == plain.standardError, "\(toStdout)")
        #expect(!FileManager.default.fileExists(atPath: dash.path))
        let written = try await fixture.run(["export", "-t", fixture.team, "-o", file.path], as: fixture.viewer)
        #expect(written.exitCode == 0 && written.standardOutput.isEmpty, "\(written)")
        #expect(written.standardError == "exported 2 tasks to \(file.path)\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == stdout)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tasks.csv"])

        // Refused (an outsider): the file is as it was, nothing is left beside it.
        try Data("kept\n".utf8).write(to: file)
        try await fixture.expectFailure(1, ["export", "-t", fixture.team, "--output", file.path], as: fixture.outsider)
        #expect(try String(contentsOf: file, encoding: .utf8) == "kept\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tasks.csv"])

        // A folder that does not exist: a usage error naming the path.
        let nowhere = folder.appendingPathComponent("missing/tasks.csv").path
        let missing = try await fixture.expectFailure(2, ["export", "-t", fixture.team, "-o", nowhere], as: fixture.viewer)
        #expect(
            missing.standardError.contains(nowhere)
                && missing.standardError.contains("No such file or directory; name a file in a folder that exists"), "\(missing)")
        let folderGiven = try await fixture.expectFailure(2, ["export", "-t", fixture.team, "-o", folder.path], as: fixture.viewer)
        #expect(folderGiven.standardError.contains("\(folder.path): a folder, not a file"), "\(folderGiven)")
    }

    @Test("export --output stopped by SIGTERM half-way exits 143 and leaves FILE as it was, with nothing beside it")
    func exportToFileStopped() async throws {
        let fixture = try await Fixture.make()
        _ = try await Self.fill(fixture, with: 6_000)
        let folder = try scratchFolder("taskctl-export")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tasks.csv")
        try Data("yesterday's export\n".utf8).write(to: file)
        // The signal goes as soon as the part file appears beside FILE: the export has begun and
        // is far from done. Should it ever finish first on a slow machine, try again.
        var stopped = false
        for _ in 1...3 where !stopped {
            let export = try await BackgroundTaskctl(["export", "-t", fixture.team, "-o", file.path], as: fixture.viewer)
            let trigger = PartFileTrigger(folder: folder, program: export)
            let code = await export.waitForExit()
            let signalled = trigger.stop()
            if signalled && code == 143 {
                stopped = true
                #expect(export.standardError.contains("SIGTERM"), "\(export.standardError)")
            } else {
                #expect(code == 0, "exit \(code): \(export.standardError)")
                try Data("yesterday's export\n".utf8).write(to: file)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tasks.csv"])
        }
        #expect(stopped, "the export finished before the signal three times")
        #expect(try String(contentsOf: file, encoding: .utf8) == "yesterday's export\n")
    }

    /// Imports `count` tasks (BULK-1...) into the fixture's team in process, so that an export
    /// of it takes a while (several pages, each read and written); the service it used.
    static func fill(_ fixture: Fixture, with count: Int) async throws -> TaskService {
        let service = TaskService(store: try await PostgresTaskStore.open(config: try await TestDatabases.shared.value, maxConnections: 1))
        let title = String(repeating: "x", count: 60)
        let drafts = try (1...count).map { try TaskImportDraft(try TaskDraft(title: "Task \($0) \(title)", externalID: "BULK-\($0)")) }
        _ = try await service.importTasks(into: try TeamKey(fixture.team), policy: .update, drafts: drafts, as: .email(fixture.owner))
        return service
    }

    @Test("export reads every page in one snapshot: a task deleted and one added while it runs leave the file as it began")
    func exportIsOneSnapshot() async throws {
        let fixture = try await Fixture.make()
        let service = try await Self.fill(fixture, with: 20_000)
        let team = try TeamKey(fixture.team), owner = UserRef.email(fixture.owner)
        let folder = try scratchFolder("taskctl-snapshot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tasks.csv")
        let export = try await BackgroundTaskctl(["export", "-t", fixture.team, "-o", file.path, "--no-progress"], as: fixture.viewer)
        defer { export.terminate() }
        // Bytes in the part file: the first page was read, so the snapshot is taken. The export
        // is paused there (SIGSTOP) while the changes are made, however slow the machine, and
        // resumed after them.
        let pause = PartFileTrigger(folder: folder, program: export, signal: SIGSTOP, whenWritten: true)
        try await waitUntil("the export's first bytes", every: .milliseconds(5)) { pause.hasFired }
        _ = pause.stop()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let part = try #require(names.first { $0.hasSuffix(".part") }.map { folder.appendingPathComponent($0) }, "\(names)")
        let last = try #require(try await service.listTasks(in: team, TaskQuery(descending: true, limit: 1), as: owner).tasks.first)
        try await service.deleteTask(last.key, as: owner)
        let added = try await service.createTask(in: team, try TaskDraft(title: "Added meanwhile"), as: owner)
        // How far the export had got when it was paused.
        let written = try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int ?? 0
        export.send(SIGCONT)
        #expect(await export.waitForExit() == 0, "\(export.standardError)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(export.standardError == "exported 20,000 tasks to \(file.path)\n")
        #expect(text.contains("\r\nBULK-20000,Task 20000 "), "the task deleted meanwhile is in the file")
        #expect(!text.contains("Added meanwhile") && !text.contains(added.key.description))
        // Had the export got near its end before the pause, the file would prove nothing.
        let whole = text.utf8.count
        #expect(written < whole / 2, "the export had written \(written) of \(whole) bytes")
    }

    /// Sends a signal to a program once a part file shows in a folder (with `whenWritten`, once
    /// it holds bytes), polled by a thread of its own: not the test's cooperative threads,
    /// which a loaded machine may hold up.
    final class PartFileTrigger: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        private var fired = false

        /// Starts polling `folder` for `program`.
        init(folder: URL, program: BackgroundTaskctl, signal: Int32 = SIGTERM, whenWritten: Bool = false) {
            Thread.detachNewThread { [self] in
                while !lock.withLock({ done }) {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                    if let part = names.first(where: { $0.hasSuffix(".part") }) {
                        let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(part).path)[.size] as? Int) ?? 0
                        if !whenWritten || size > 0 {
                            program.send(signal)
                            lock.withLock { fired = true }
                            return
                        }
                    }
                    usleep(500)
                }
            }
        }

        /// Whether the signal was sent.
        var hasFired: Bool { lock.withLock { fired } }

        /// Stops polling; whether the signal was sent.
        func stop() -> Bool {
            lock.withLock {
                done = true
                return fired
            }
        }
    }
}
