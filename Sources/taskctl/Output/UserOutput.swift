import CommandLineToolkit
import Foundation
import SafeText
import TaskCore
import TaskbaseWire

/// How users print.
enum UserOutput {
    /// `user list`.
    static let list = ListOutput<User>(
        table: [
            .init("EMAIL") { $0.email },
            .init("NAME", maxWidth: 40) { $0.displayName },
            .init("STATUS") { status($0) },
            .init("ID", alignment: .right) { String($0.id.rawValue) },
        ],
        csv: [
            .init("id") { String($0.id.rawValue) },
            .init("email") { $0.email },
            .init("display_name") { $0.displayName },
            .init("disabled") { String($0.isDisabled) },
            .init("operator") { String($0.isOperator) },
            .init("created_at") { Timestamp.iso($0.createdAt) },
        ])

    /// One line after a change: `user ann@example.com (#3): Ann Lee, enabled`.
    static func line(_ user: User) -> String {
        "user \(TerminalText.clean(user.email)) (#\(user.id)): \(TerminalText.clean(user.displayName)), \(status(user))\n"
    }

    private static func status(_ user: User) -> String {
        (user.isDisabled ? "disabled" : "enabled") + (user.isOperator ? ", operator" : "")
    }
}
