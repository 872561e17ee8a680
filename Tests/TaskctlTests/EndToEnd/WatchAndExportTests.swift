import Foundation
import Testing

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
}
