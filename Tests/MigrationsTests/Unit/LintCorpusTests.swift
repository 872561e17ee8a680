import Foundation
import Migrations
import Testing

/// The corpus of one-risk migrations in `LintCorpus/` (also what docs/migration-lint.md's
/// comparison with squawk runs over): each file or folder under `risky/` must be flagged with
/// exactly the rule its `-- expect:` line names, and each under `safe/` must pass.
@Suite("Lint corpus: every risky shape is flagged, no safe twin is")
struct LintCorpusTests {
    /// One case: a file, or a folder linted as one history.
    struct Case: Sendable, CustomStringConvertible {
        var path: String
        var isRisky: Bool
        var expected: LintRule?
        var description: String { path.replacingOccurrences(of: Self.root + "/", with: "") }

        static let root = MigrationFolder.packageRoot + "/Tests/MigrationsTests/LintCorpus"

        static func all(_ kind: String) -> [Case] {
            let directory = root + "/" + kind
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory).sorted()) ?? []
            return names.map { name in
                let path = directory + "/" + name
                let first =
                    isFolder(path)
                    ? (try? FileManager.default.contentsOfDirectory(atPath: path).sorted().first).flatMap { $0 }.map { path + "/" + $0 } : path
                let header = first.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?.split(separator: "\n").first ?? ""
                return Case(path: path, isRisky: kind == "risky", expected: LintRule(rawValue: String(header.dropFirst("-- expect: ".count))))
            }
        }

        static func isFolder(_ path: String) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        }

        /// The rules lint refuses the case with.
        func refusedRules() throws -> Set<LintRule> {
            let target =
                try Self.isFolder(path)
                ? LintTarget(directory: MigrationDirectory(path: path), paths: [])
                : LintTarget(directory: MigrationDirectory(path: "."), paths: [path])
            #expect(target.errors.isEmpty, "\(target.errors)")
            return Set(target.lint().filter { !$0.isAllowed }.map(\.rule))
        }
    }

    @Test("the corpus covers every rule with a risky case")
    func coversEveryRule() {
        let covered = Set(Case.all("risky").compactMap(\.expected))
        #expect(Set(LintRule.allCases).subtracting(covered).isEmpty, "no risky case for \(Set(LintRule.allCases).subtracting(covered))")
        #expect(Case.all("safe").count >= 30)
    }

    @Test("a risky migration is flagged with its rule, and only that", arguments: Case.all("risky"))
    func risky(_ corpusCase: Case) throws {
        let expected = try #require(corpusCase.expected, "\(corpusCase) has no -- expect: RULE line")
        #expect(try corpusCase.refusedRules() == [expected])
    }

    @Test("a safe twin passes", arguments: Case.all("safe"))
    func safe(_ corpusCase: Case) throws {
        #expect(try corpusCase.refusedRules().isEmpty)
    }
}
