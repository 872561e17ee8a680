import APITokens
import CommandLineToolkit
import Foundation
import SafeText
import TaskCore
import TaskbaseWire

/// `taskctl token ...`: API tokens for taskserve, an operator call like `user`: with `--as`
/// (or `TASKBASE_ACTOR`) the acting user must be an enabled operator, without it the database
/// login's own rights decide. Token names are the token owners' text (a member names their own
/// over the API) and reach the terminal escaped.
enum TokenCommands {
    /// The `token` command group.
    static let command = Command(
        "token", abstract: "API tokens for taskserve: create, list, revoke.",
        discussion: """
            A token acts as its user over the HTTP API (Authorization: Bearer <token>). Only a keyed \
            hash is stored, under TASKBASE_TOKEN_KEY, which must be the same for taskctl and taskserve.
            """,
        subcommands: [create, list, revoke])

    static let create = Command(
        "create", abstract: "Make a token for a user and print it, the only time it is shown.",
        discussion: "Example: taskctl token create ann@example.com --name ci --expires-in 30d",
        positionals: [SharedDeclarations.email],
        options: [
            Option("name", help: "What the token is for, shown in lists.", default: "api"),
            Option("expires-in", valueName: "DURATION", help: "Lifetime: 90d, 12h, 30m or 3600s (at most 2 years).", default: "90d"),
        ],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let lifetime = try TokenFields.lifetime(invocation.values.string("expires-in") ?? "90d", field: "expires-in")
            let secrets = TokenSecrets.fromEnvironment()
            let (secret, digest) = try secrets.generate()
            let service = try await invocation.openService()
            let token = try await service.createToken(
                for: invocation.values.userRef("email"), name: invocation.values.string("name") ?? "api", lifetime: lifetime, digest: digest,
                as: invocation.optionalActor())
            let document = NewTokenDocument(secret: secret, token: token)
            try invocation.write(
                format == .json
                    ? try JSONOutput.encode(document)
                    : "\(secret)\n")
            // taskserve says the same at start.
            if let warning = secrets.missingKeyWarning { try invocation.note("taskctl: warning: " + warning) }
            if format != .json {
                try invocation.note(
                    "token #\(token.id) (\(TerminalText.clean(token.name))) expires \(Timestamp.iso(token.expiresAt)); it is not shown again")
            }
        })

    static let list = Command(
        "list", abstract: "List a user's tokens, newest first (never the secrets).",
        positionals: [SharedDeclarations.email],
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let tokens = try await invocation.openService().tokens(of: invocation.values.userRef("email"), as: invocation.optionalActor())
            try invocation.write(try output.render(tokens, as: format) { tokens.map(TokenDocument.init) })
        })

    static let revoke = Command(
        "revoke", abstract: "Revoke a token by id; it stops working at once in every taskserve.",
        positionals: [Positional("id", help: "The token's id, from token list.")],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            guard let id = Int64(invocation.values.requiredString("id")), id > 0 else {
                throw UsageError("a token id is a positive number, as token list shows")
            }
            let token = try await invocation.openService().revokeToken(TokenID(id), as: invocation.optionalActor())
            try invocation.write(
                format == .json ? try JSONOutput.encode(TokenDocument(token)) : "revoked token #\(token.id) (\(TerminalText.clean(token.name)))\n")
        })

    static let output = ListOutput<APIToken>(
        table: [
            .init("ID", alignment: .right) { String($0.id.rawValue) },
            .init("NAME", maxWidth: 40) { $0.name },
            .init("PREFIX") { $0.prefix },
            .init("EXPIRES") { Timestamp.iso($0.expiresAt) },
            .init("STATE") { $0.revokedAt != nil ? "revoked" : ($0.expiresAt < Date() ? "expired" : "active") },
        ],
        csv: [
            .init("id") { String($0.id.rawValue) },
            .init("name") { $0.name },
            .init("prefix") { $0.prefix },
            .init("created_at") { Timestamp.iso($0.createdAt) },
            .init("expires_at") { Timestamp.iso($0.expiresAt) },
            .init("last_used_at") { $0.lastUsedAt.map(Timestamp.iso) },
            .init("revoked_at") { $0.revokedAt.map(Timestamp.iso) },
        ])
}
