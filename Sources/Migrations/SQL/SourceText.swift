/// The text of a migration file as Unicode scalars, with the line table that turns a scalar
/// offset (a token's, or a server error's position) into a 1-based line and column.
public struct SourceText: Sendable {
    /// The file's text, one element per Unicode scalar.
    public let scalars: [Unicode.Scalar]
    private let lineStarts: [Int]

    /// Wraps `text`.
    public init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        var starts = [0]
        for (index, scalar) in scalars.enumerated() where scalar == "\n" {
            starts.append(index + 1)
        }
        lineStarts = starts
    }

    /// The 1-based line and column of the scalar at `offset`.
    public func location(ofOffset offset: Int) -> SourceLocation {
        let clamped = max(0, min(offset, scalars.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= clamped { low = middle } else { high = middle - 1 }
        }
        return SourceLocation(line: low + 1, column: clamped - lineStarts[low] + 1)
    }

    /// The text of the scalars in `range`.
    public func text(_ range: Range<Int>) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[max(0, range.lowerBound)..<min(range.upperBound, scalars.count)])
        return String(result)
    }
}

/// A 1-based line and column in a migration file.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int

    /// A location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}
