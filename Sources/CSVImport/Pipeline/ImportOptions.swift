import TaskCore

/// The importer's options as people write them — taskimport's flags and taskserve's query
/// parameters of `POST /v1/teams/{team}/imports` use the same names — read in one place.
///
/// ```swift
/// let options = try ImportOptions { name in values.strings(name) }   // "delimiter" → [";"]
/// let file = try TaskCSVImport(reader: CSVReader(path: path, options: options.readerOptions), overrides: options.overrides)
/// ```
public struct ImportOptions: Sendable, Equatable {
    /// The option names, as taskimport spells its flags (without `--`).
    public static let names = ["on-conflict", "dry-run", "max-errors", "map", "delimiter", "encoding", "max-field-size"]

    /// `on-conflict`: what a row whose external id the team already has does.
    public var policy: ImportConflictPolicy = .update
    /// `dry-run`: report what would happen, write nothing.
    public var dryRun = false
    /// `max-errors`: bad rows left out before the import stops.
    public var maxErrors = 0
    /// `map FIELD=HEADER` (repeatable): columns that fill fields whatever the synonyms say.
    public var overrides: [ColumnOverride] = []
    /// `delimiter`: the separator; nil is `auto` (counted on the header line).
    public var delimiter: CSVDelimiter?
    /// `encoding`: the input's encoding (a byte-order mark wins).
    public var encoding: TextEncoding = .utf8
    /// `max-field-size`: the longest field read, in bytes.
    public var maxFieldBytes = CSVReader.Options.defaultMaxFieldBytes

    /// The `delimiter` value that counts the separator on the header line (the default).
    public static let automaticDelimiter = "auto"

    /// The defaults, as taskimport has them.
    public init() {}

    /// Reads every option from `values` (an option's values in order; empty when not given; a
    /// flag is given as `true`/`false`, or with an empty value for true).
    public init(values: (String) -> [String]) throws(ImportOptionError) {
        if let text = values("on-conflict").last {
            guard let policy = ImportConflictPolicy(rawValue: text.lowercased()) else {
                throw ImportOptionError(option: "on-conflict", reason: "expected update, skip or fail, got \"\(text)\"")
            }
            self.policy = policy
        }
        if let text = values("dry-run").last {
            switch text.lowercased() {
            case "", "true", "1", "yes": dryRun = true
            case "false", "0", "no": dryRun = false
            default: throw ImportOptionError(option: "dry-run", reason: "expected true or false, got \"\(text)\"")
            }
        }
        if let text = values("max-errors").last {
            guard let count = Int(text), count >= 0 else { throw ImportOptionError(option: "max-errors", reason: "expected 0 or more, got \(text)") }
            maxErrors = count
        }
        for argument in values("map") {
            do {
                overrides.append(try ColumnOverride(argument: argument))
            } catch {
                throw ImportOptionError(option: "map", reason: error.description)
            }
        }
        if let text = values("delimiter").last, text.lowercased() != Self.automaticDelimiter {
            guard let delimiter = CSVDelimiter(argument: text) else {
                throw ImportOptionError(
                    option: "delimiter", reason: "expected one of , ; tab | (or comma, semicolon, pipe), or auto, got \"\(text)\"")
            }
            self.delimiter = delimiter
        }
        if let text = values("encoding").last {
            guard let encoding = TextEncoding(argument: text) else {
                throw ImportOptionError(option: "encoding", reason: "expected utf-8, utf-16, windows-1252 or latin1, got \"\(text)\"")
            }
            self.encoding = encoding
        }
        if let text = values("max-field-size").last {
            guard let size = Int(text), size > 0 else {
                throw ImportOptionError(option: "max-field-size", reason: "expected a number of bytes above 0, got \(text)")
            }
            maxFieldBytes = size
        }
    }

    /// Every option as one query parameter (`map` as one per override, in order), spelled one
    /// way: what `init(values:)` reads back as these options. Two spellings the importer takes
    /// alike (`dry-run=1` and `dry-run=true`, `delimiter=TAB` and a tab, an option left out and
    /// its default) give the same arguments.
    public var arguments: [(name: String, value: String)] {
        [
            ("on-conflict", policy.rawValue), ("dry-run", dryRun ? "true" : "false"), ("max-errors", String(maxErrors)),
        ] + overrides.map { ("map", "\($0.field.rawValue)=\($0.header)") } + [
            ("delimiter", delimiter?.spellings[0] ?? Self.automaticDelimiter), ("encoding", encoding.rawValue),
            ("max-field-size", String(maxFieldBytes)),
        ]
    }

    /// How the reader reads the input under these options.
    public var readerOptions: CSVReader.Options {
        CSVReader.Options(
            delimiter: delimiter ?? .comma, detectsDelimiter: delimiter == nil, encoding: encoding, maxFieldBytes: maxFieldBytes,
            skipsEmptyRecords: true)
    }

    /// The import's settings: into `team` as `actor` under these options.
    public func settings(team: TeamKey, actor: UserRef) -> TaskCSVImport.Settings {
        TaskCSVImport.Settings(team: team, actor: actor, policy: policy, dryRun: dryRun, maxRejectedRows: maxErrors)
    }
}

/// An importer option with a value it cannot take: which option, and what is wrong.
public struct ImportOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option's name, as `ImportOptions.names` spells it.
    public var option: String
    /// What is wrong with its value and what it takes.
    public var reason: String

    /// `option: reason`.
    public var description: String { "\(option): \(reason)" }
}
