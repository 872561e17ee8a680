import Foundation

/// What `taskmigrate lint` reads: the whole folder, or the named files. A named file that lies
/// in the folder is linted with the folder around it (earlier files' validated checks, later
/// files' fixes); any other file on its own. Files that cannot be parsed are kept as errors, so
/// one bad file never hides the others' findings.
public struct LintTarget: Sendable {
    /// The files whose findings are reported, in the order they are reported.
    public private(set) var judged: [MigrationFile] = []
    /// One error per file that could not be read or parsed.
    public private(set) var errors: [MigrationFileError] = []
    private var folder: [MigrationFile] = []
    private var judgedInFolder: [String: String] = [:]
    private var alone: [MigrationFile] = []

    /// The folder's files (`paths` empty), or the files at `paths`; only an unreadable folder
    /// throws.
    public init(directory: MigrationDirectory, paths: [String]) throws(MigrationFileError) {
        if paths.isEmpty {
            let (files, errors) = try directory.loadEach()
            folder = files
            judged = files
            judgedInFolder = Dictionary(files.map { ($0.path, $0.path) }, uniquingKeysWith: { first, _ in first })
            self.errors = errors
            return
        }
        let folderPath = URL(fileURLWithPath: directory.path).standardizedFileURL.path
        let folderFiles = (try? directory.loadEach().files) ?? []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            if url.deletingLastPathComponent().path == folderPath, let file = folderFiles.first(where: { $0.fileName == url.lastPathComponent }) {
                folder = folderFiles
                judgedInFolder[file.path] = path
                var named = file
                named.path = path
                judged.append(named)
                continue
            }
            do {
                let file = try MigrationDirectory.load(path: path)
                alone.append(file)
                judged.append(file)
            } catch {
                errors.append(error)
            }
        }
    }

    /// How many files were read, the unparseable ones not counted.
    public var fileCount: Int { judged.count }

    /// Every finding of the judged files, starting from what `database` proves, each under the
    /// path it was named by.
    public func lint(database: LintDatabaseFacts = LintDatabaseFacts()) -> [LintFinding] {
        let linter = MigrationLinter()
        var findings: [LintFinding] = []
        for var finding in linter.lint(folder, database: database) {
            guard let path = judgedInFolder[finding.path] else { continue }
            finding.path = path
            findings.append(finding)
        }
        for file in alone { findings += linter.lint([file], database: database) }
        return findings
    }
}
