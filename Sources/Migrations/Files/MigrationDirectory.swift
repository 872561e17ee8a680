import Foundation

/// The folder of migration files: where it is, what it holds, and the next file's name.
public struct MigrationDirectory: Sendable {
    /// The folder's path, as given.
    public var path: String

    /// The environment variable that names the folder when `--dir` is not given.
    public static let environmentVariable = "TASKBASE_MIGRATIONS_DIR"

    /// The generated dump of the schema after every migration (`scripts/schema`), which sits
    /// beside the migrations for reviewers and is never run.
    public static let schemaFileName = "schema.sql"

    /// The folder at `path`.
    public init(path: String) {
        self.path = path
    }

    /// Every `.sql` file in the folder, parsed, in version order, with the earlier checksums its
    /// `superseded-checksums` file accepts. Other files, hidden files and `schema.sql` are
    /// ignored; a `.sql` file with a bad name, a duplicate version or a broken directive is an
    /// error naming it.
    public func load() throws(MigrationFileError) -> [MigrationFile] {
        let (files, errors) = try loadEach()
        if let first = errors.first { throw first }
        return files
    }

    /// Every `.sql` file in the folder, each parsed on its own, so that one bad file does not
    /// hide the others: the files that parse, in version order, and one error per file that
    /// does not (a second file with a version already used included), in name order.
    public func loadEach() throws(MigrationFileError) -> (files: [MigrationFile], errors: [MigrationFileError]) {
        let names: [String]
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        guard exists, isDirectory.boolValue else {
            throw MigrationFileError(
                path: path,
                message:
                    "\(exists ? "is a file, not a folder" : "no such folder"); pass --dir or set \(Self.environmentVariable) to the migrations folder"
            )
        }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw MigrationFileError(
                path: path, message: "cannot read the migrations folder (\(Self.reason(error))); pass --dir or set \(Self.environmentVariable)")
        }
        var files: [MigrationFile] = []
        var errors: [MigrationFileError] = []
        for name in names.sorted() where name.lowercased().hasSuffix(".sql") && !name.hasPrefix(".") && name != Self.schemaFileName {
            guard name.hasSuffix(".sql") else {
                // 0010_x.SQL would otherwise be skipped without a word, and never applied.
                errors.append(
                    MigrationFileError(
                        path: filePath(name), message: "the extension must be .sql in lowercase; rename it to \(name.dropLast(4)).sql"))
                continue
            }
            do {
                files.append(try load(fileName: name))
            } catch {
                errors.append(error)
            }
        }
        files.sort { $0.version < $1.version }
        var unique: [MigrationFile] = []
        for file in files {
            if let previous = unique.last, previous.version == file.version {
                errors.append(
                    MigrationFileError(
                        path: filePath(file.fileName),
                        message: "version \(file.version) is also used by \(previous.fileName); give each migration its own number"))
            } else {
                unique.append(file)
            }
        }
        let supersededPath = filePath(SupersededChecksums.fileName)
        guard let data = FileManager.default.contents(atPath: supersededPath) else { return (unique, errors) }
        do throws(MigrationFileError) {
            guard let text = String(data: data, encoding: .utf8) else {
                throw MigrationFileError(path: supersededPath, message: "the file is not valid UTF-8; save it as UTF-8")
            }
            return (try SupersededChecksums.parse(text, path: supersededPath).apply(to: unique, path: supersededPath), errors)
        } catch {
            return (unique, errors + [error])
        }
    }

    /// One file of the folder, parsed.
    public func load(fileName: String) throws(MigrationFileError) -> MigrationFile {
        try Self.load(path: filePath(fileName))
    }

    /// A migration file anywhere (for `lint FILES`), parsed.
    public static func load(path: String) throws(MigrationFileError) -> MigrationFile {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MigrationFileError(path: path, message: "this is a folder, not a migration file; lint a whole folder with --dir")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = access(path, R_OK) == 0 ? "it could not be read" : String(cString: strerror(errno))
            throw MigrationFileError(path: path, message: "cannot read the file: \(why)")
        }
        let fileName = (path as NSString).lastPathComponent
        return try MigrationFile.parse(fileName: fileName, path: path, bytes: [UInt8](data))
    }

    /// The path of `fileName` inside the folder.
    public func filePath(_ fileName: String) -> String {
        (path as NSString).appendingPathComponent(fileName)
    }

    /// Writes an empty migration named `name` with the next version, and returns its path.
    /// `name` may use spaces, dashes and capitals; it is turned into snake_case.
    public func create(name: String) throws(MigrationFileError) -> String {
        let snake = name.trimmingCharacters(in: .whitespaces).lowercased().map { $0 == " " || $0 == "-" ? "_" : $0 }
        let normalized = String(snake)
        guard MigrationFileName.isSnakeCase(normalized) else {
            throw MigrationFileError(
                path: path,
                message: "\"\(name)\" cannot be a migration name: use letters, digits, spaces, dashes or underscores, starting with a letter")
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw MigrationFileError(path: path, message: "cannot create the migrations folder (\(Self.reason(error)))")
            }
        }
        let existing = try load()
        let version = (existing.last?.version ?? 0) + 1
        let digits = max(MigrationFileName.minimumDigits, existing.last.map { $0.fileName.prefix { $0.isNumber }.count } ?? 0)
        let target = filePath(MigrationFileName.fileName(version: version, name: normalized, digits: digits))
        let template = "-- migrate:up\n\n\n-- migrate:down\n\n"
        // Never over a file of the same name (another `new` may have just made it); a refusal says why.
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw MigrationFileError(path: target, message: "cannot write the file: \(String(cString: strerror(errno)))")
        }
        let bytes = Array(template.utf8)
        let written = write(descriptor, bytes, bytes.count)
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard written == bytes.count else {
            unlink(target)
            throw MigrationFileError(path: target, message: "cannot write the file: \(reason)")
        }
        return target
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
