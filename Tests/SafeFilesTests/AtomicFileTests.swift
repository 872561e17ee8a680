import Foundation
import SafeFiles
import TaskbaseTestSupport
import Testing

@Suite("AtomicFile: a destination is what it was or the whole new file")
struct AtomicFileTests {
    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    static func mode(of file: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int ?? -1
    }

    @Test("the destination keeps its old bytes while the new file is written, and has the new ones once committed")
    func commitReplaces() throws {
        let folder = try scratchFolder("atomic-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("tasks.csv")
        try Data("old\n".utf8).write(to: destination)
        let file = try AtomicFile(replacing: destination)
        try Array("new, ".utf8).withUnsafeBytes { try file.write($0) }
        try Array("and whole\n".utf8).withUnsafeBytes { try file.write($0) }
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\n")
        #expect(try Self.names(in: folder).count == 2, "the part file sits beside the destination")
        try file.commit()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new, and whole\n")
        #expect(try Self.names(in: folder) == ["tasks.csv"])
        #expect(throws: AtomicFileError.self) { try file.commit() }
    }

    @Test("abandoning, or letting go of, an unfinished file leaves the destination as it was and nothing beside it")
    func abandonLeavesNothing() throws {
        let folder = try scratchFolder("atomic-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("tasks.csv")
        try Data("old\n".utf8).write(to: destination)
        let file = try AtomicFile(replacing: destination)
        try Array("half".utf8).withUnsafeBytes { try file.write($0) }
        file.abandon()
        file.abandon()
        #expect(try String(contentsOf: destination, encoding: .utf8) == "old\n")
        #expect(try Self.names(in: folder) == ["tasks.csv"])
        do {
            let dropped = try AtomicFile(replacing: folder.appendingPathComponent("new.csv"))
            try Array("half".utf8).withUnsafeBytes { try dropped.write($0) }
        }
        #expect(try Self.names(in: folder) == ["tasks.csv"])
    }

    @Test("a replaced file keeps its permissions; a new one gets the umask's")
    func permissions() throws {
        let folder = try scratchFolder("atomic-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let private_ = folder.appendingPathComponent("private.csv")
        try Data("secret\n".utf8).write(to: private_)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: private_.path)
        let file = try AtomicFile(replacing: private_)
        try file.commit()
        #expect(try Self.mode(of: private_) == 0o600)

        // The process's umask, read without changing it (tests run in parallel).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8))
        let fresh = folder.appendingPathComponent("fresh.csv")
        try AtomicFile(replacing: fresh).commit()
        #expect(try Self.mode(of: fresh) == 0o666 & ~mask)
    }

    @Test("a missing folder is an error naming the path, before anything is written")
    func missingFolder() throws {
        let folder = try scratchFolder("atomic-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("no-such-folder/tasks.csv")
        let error = #expect(throws: AtomicFileError.self) { _ = try AtomicFile(replacing: destination) }
        #expect(error?.path == destination.path)
        #expect(error?.description.contains("No such file or directory") == true, "\(String(describing: error))")
    }

    @Test("a folder as the destination is refused before anything is written; a symbolic link stays and its file is replaced")
    func folderAndLink() throws {
        let folder = try scratchFolder("atomic-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: AtomicFileError.self) { _ = try AtomicFile(replacing: folder) }
        #expect(error?.description == "\(folder.path): a folder, not a file")

        let real = folder.appendingPathComponent("real.csv"), link = folder.appendingPathComponent("latest.csv")
        try Data("old\n".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.csv")
        let file = try AtomicFile(replacing: link)
        try Array("new\n".utf8).withUnsafeBytes { try file.write($0) }
        try file.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.csv")
        #expect(try String(contentsOf: real, encoding: .utf8) == "new\n")
        #expect(try Self.names(in: folder) == ["latest.csv", "real.csv"])
    }
}
