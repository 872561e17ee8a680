/// What an option's or positional's value must look like; checked while parsing, so getters never fail.
public enum ValueType: Sendable, Equatable {
    /// Any text.
    case string
    /// A whole number, possibly negative.
    case integer
    /// A whole number of 1 or more (a version, a count of things that cannot be none).
    case positiveInteger
    /// One of a fixed list of words, e.g. `csv` or `json`.
    case choice([String])

    /// The choice of every raw value of an enum, e.g. `.choice(of: OutputFormat.self)`.
    public static func choice<T: CaseIterable & RawRepresentable>(of type: T.Type) -> ValueType where T.RawValue == String {
        .choice(type.allCases.map(\.rawValue))
    }

    /// Why `text` is not a valid value, or nil when it is.
    func problem(with text: String) -> String? {
        switch self {
        case .string:
            return nil
        case .integer:
            return Int(text) == nil ? "expected a whole number" : nil
        case .positiveInteger:
            return Int(text).map { $0 >= 1 } == true ? nil : "expected a whole number of 1 or more"
        case .choice(let allowed):
            return allowed.contains(text) ? nil : "expected one of: \(allowed.joined(separator: ", "))"
        }
    }
}
