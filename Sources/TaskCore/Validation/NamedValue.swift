import Foundation

/// An enumeration whose cases are spelled by name on the command line and in files,
/// so that one parser gives every such field the same error wording.
public protocol NamedValue: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    /// The field name used in validation errors, e.g. `status`.
    static var fieldName: String { get }
}

extension NamedValue {
    /// Parses a case name ignoring case, spaces and hyphens (`In progress` → `in_progress`);
    /// anything else is a validation error naming the field and the allowed values.
    public init(parsing text: String, field: String = Self.fieldName) throws {
        let normalized = text.trimmingSpaces().lowercased()
            .replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        guard let value = Self(rawValue: normalized) else {
            let allowed = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw TaskError.validation(field: field, reason: "\(TaskError.quoting(text)) is not one of \(allowed)")
        }
        self = value
    }
}
