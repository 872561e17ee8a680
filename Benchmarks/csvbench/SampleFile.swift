import Foundation

/// Writes a realistic task CSV of `rows` records (about 100 bytes each): quoted titles with
/// commas and doubled quotes, multi-line notes, accents and emoji, empty categories.
enum SampleFile {
    static let header = "External ID,Title,Notes,Status,Priority,Due Date,Assignee Email,Category\r\n"
    private static let titles = [
        "Write quarterly report", "Fix login bug", "\"Review PR #42, then merge\"",
        "Plan offsite", "\"Call supplier about \"\"late\"\" parts\"", "Update café menu",
        "Migrate DB", "Prepare demo 🚀",
    ]
    private static let notes = [
        "", "Short note", "\"Two lines:\nsecond line here\"", "Ask Zoë first",
        "\"Contains, a comma\"", "Plain notes with a few more words in them",
    ]
    private static let statuses = ["open", "in_progress", "done"]
    private static let priorities = ["none", "low", "medium", "high", "urgent"]
    private static let people = ["ana@example.com", "bo@example.com", "chloé@example.com", ""]
    private static let categories = ["Backend", "Frontend", "", "Ops", "Design"]

    static func write(rows: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer = Array(header.utf8)
        buffer.reserveCapacity(1 << 20)
        for row in 0..<rows {
            let line =
                "EXT-\(row),\(titles[row % titles.count]),\(notes[row % notes.count] ),"
                + "\(statuses[row % statuses.count]),\(priorities[row % priorities.count]),"
                + "2026-\(row % 12 + 1)-\(row % 28 + 1),\(people[row % people.count]),"
                + "\(categories[row % categories.count])\r\n"
            buffer.append(contentsOf: line.utf8)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
    }
}
