import TaskCore
import Testing

/// One named check of the store contract. A store's test target runs every check in
/// `TaskStoreContract.checks` against a fresh store, so all stores answer to the same text.
public struct ContractCheck: Sendable, CustomTestStringConvertible {
    /// What the check specifies, e.g. "a stale version is a conflict and overwrites nothing".
    public let name: String
    let body: @Sendable (ContractFixture) async throws -> Void

    /// A check named `name` whose `body` exercises a fixture.
    public init(_ name: String, _ body: @escaping @Sendable (ContractFixture) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Shows the check's name as the test case name.
    public var testDescription: String { name }

    /// Runs the check against `store`. Users and teams get unique names, so several checks
    /// may share one database.
    public func run(against store: any TaskStore) async throws {
        try await body(try await ContractFixture.make(store: store))
    }
}
