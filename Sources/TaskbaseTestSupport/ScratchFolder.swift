import Foundation

/// A new, empty folder under the system's temporary directory for one test's files, named
/// `label-UUID`; the test removes it (`defer { try? FileManager.default.removeItem(at: folder) }`).
public func scratchFolder(_ label: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
