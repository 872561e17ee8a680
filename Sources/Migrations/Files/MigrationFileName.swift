/// The `NNNN_snake_name.sql` name of a migration file: the version orders the files, the name
/// says what the migration does.
public struct MigrationFileName: Sendable, Equatable {
    /// The number before the first underscore.
    public var version: Int64
    /// The snake_case words after it, without `.sql`.
    public var name: String

    /// A file name's parts.
    public init(version: Int64, name: String) {
        self.version = version
        self.name = name
    }

    /// The smallest number of digits a version is written with.
    public static let minimumDigits = 4

    /// Parses `fileName`, or explains in one line why it is not a migration file name.
    public static func parse(_ fileName: String) -> Result<MigrationFileName, MigrationFileError> {
        func reject(_ why: String) -> Result<MigrationFileName, MigrationFileError> {
            .failure(
                MigrationFileError(
                    path: fileName, message: "not a migration file name: \(why); expected NNNN_snake_name.sql, e.g. 0007_add_due_dates.sql"))
        }
        guard fileName.hasSuffix(".sql") else { return reject("it does not end in .sql") }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return reject("no underscore between the number and the name") }
        let digits = stem[..<underscore]
        let name = String(stem[stem.index(after: underscore)...])
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return reject("\"\(digits)\" is not a number")
        }
        guard digits.count >= minimumDigits else { return reject("the number has fewer than \(minimumDigits) digits") }
        guard let version = Int64(digits), version > 0 else { return reject("the number must be between 1 and \(Int64.max)") }
        guard isSnakeCase(name) else {
            return reject("\"\(name)\" is not snake_case (lowercase letters, digits and single underscores, starting with a letter)")
        }
        return .success(MigrationFileName(version: version, name: name))
    }

    /// True for `lowercase_words_and_digits2`.
    public static func isSnakeCase(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first >= "a", first <= "z", !name.hasSuffix("_"), !name.contains("__") else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
    }

    /// The file name for `version` and `name`, with the version zero-padded to `digits`.
    public static func fileName(version: Int64, name: String, digits: Int = minimumDigits) -> String {
        let number = String(version)
        return String(repeating: "0", count: max(0, digits - number.count)) + number + "_" + name + ".sql"
    }
}
