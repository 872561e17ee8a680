/// How many stored values an import's normalisation rules changed, rule by rule, so the
/// summary can say out loud what was not stored exactly as written. Counted over accepted rows.
public struct ImportNormalisations: Sendable, Equatable {
    /// Titles that lost white space at either end.
    public var titlesTrimmed = 0
    /// Notes that lost trailing white space.
    public var notesTrimmedAtEnd = 0
    /// Categories and external ids that lost white space at either end.
    public var valuesTrimmed = 0
    /// Cells whose CR or CRLF line breaks became LF.
    public var lineBreaksMadeLF = 0

    /// An empty count.
    public init() {}

    /// Whether any rule changed anything.
    public var changedAnything: Bool {
        titlesTrimmed + notesTrimmedAtEnd + valuesTrimmed + lineBreaksMadeLF > 0
    }
}
