import CSVImport
import Foundation
import TaskCore

/// JSON Schema patterns spelling what TaskCore accepts, built from the same predicates and
/// constants its validators use (`Unicode.Scalar.isTrimmedSpace`, Unicode's White_Space,
/// `Character.isNewline`, the length limits), so the document cannot drift from them.
///
/// Written for every reader of a pattern (ECMA-262, Python's `re`, ICU): characters as `\uXXXX`
/// escapes, digits as `[0-9]` (Python's `\d` takes any Unicode digit), and no construct beyond
/// the subset JSON Schema recommends (no lookaround: RE2, behind Go's validators, has none).
/// The end is `$`, which in ECMA-262, JSON Schema's dialect, is the end of the text; Python's
/// `re` and ICU also let it match before a final line feed, so to them the document takes a
/// value with one more trailing line feed than the server does (`OpenAPIRuleTests` reads the
/// patterns as ECMA-262 does).
enum InputPatterns {
    /// The end of the text, as ECMA-262 reads `$`.
    static let end = "$"

    /// A character class's contents (no brackets) holding exactly the scalars of the Basic
    /// Multilingual Plane `holds` is true of: every space, white space and line break is there
    /// (`OpenAPIRuleTests` checks the planes above), and scanning them all cost the document's
    /// first request seconds in a debug build.
    static func members(_ holds: (Unicode.Scalar) -> Bool) -> String {
        var contents = "", start: UInt32? = nil, previous: UInt32 = 0
        func close() {
            guard let first = start else { return }
            contents += escaped(first) + (previous == first ? "" : (previous == first + 1 ? "" : "-") + escaped(previous))
        }
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value), holds(scalar) else { continue }
            if start == nil || value != previous + 1 {
                close()
                start = value
            }
            previous = value
        }
        close()
        return contents
    }

    private static func escaped(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// The spaces a key, a name of a value, a date or a lifetime is trimmed of (`trimmingSpaces`).
    static let spaces = members(\.isTrimmedSpace)
    /// The white space a text field is trimmed of (`TextRules.trimmed`).
    static let whitespace = members(\.properties.isWhitespace)
    /// The line breaks a one-line field refuses (`Character.isNewline`).
    static let lineBreaks = members { Character($0).isNewline }
    /// NUL, which no stored text holds.
    static let nul = "\\u0000"
    /// The control characters and bidi controls no email or name holds (`UserFields.isHiddenControl`).
    static let hiddenControls = members(UserFields.isHiddenControl)

    /// Exactly `core`, nothing before or after it.
    static func whole(_ core: String) -> String { "^(?:\(core))" + end }

    /// `core` with any spaces (`trimmingSpaces`) around it, and nothing else.
    static func padded(_ core: String) -> String { whole("[\(spaces)]*(?:\(core))[\(spaces)]*") }

    /// A text trimmed of white space at both ends, then `length` characters long (code points),
    /// without NUL or any character of the class contents `refusing`, and without a line break
    /// inside when `oneLine`.
    static func trimmedText(_ length: ClosedRange<Int>, oneLine: Bool = false, refusing: String = "") -> String {
        let inner = "[^\(nul)\(oneLine ? lineBreaks : "")\(refusing)]"
        let edge = "[^\(nul)\(whitespace)\(refusing)]"
        let core = length.upperBound == 1 ? edge : "\(edge)(?:\(inner){0,\(length.upperBound - 2)}\(edge))?"
        return "^[\(whitespace)]*" + (length.lowerBound == 0 ? "(?:\(core))?" : core) + "[\(whitespace)]*" + end
    }

    /// A name as `UserFields.name` takes it (a user's, a team's or a token's): one line of 1 to
    /// `UserFields.nameMaxLength` characters after trimming, without a control character or a
    /// bidi control.
    static let userOrTeamName = trimmedText(1...UserFields.nameMaxLength, oneLine: true, refusing: hiddenControls)

    /// A text of at most `maxLength` characters once trailing white space is removed, without NUL.
    static func trailingTrimmedText(maxLength: Int) -> String {
        "^(?:[^\(nul)]{0,\(maxLength - 1)}[^\(nul)\(whitespace)])?[\(whitespace)]*" + end
    }

    /// `word` in any case: `[Oo][Pp][Ee][Nn]`, with `_` also written as a space or a hyphen.
    static func caseless(_ word: String, underscore: String = "_") -> String {
        word.map { character in
            if character == "_" { return underscore }
            let lower = character.lowercased(), upper = character.uppercased()
            guard lower == upper else { return "[\(upper)\(lower)]" }
            // A control character (a tab) as an escape, as the patterns write characters.
            if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1, scalar.properties.generalCategory == .control {
                return escaped(scalar.value)
            }
            return NSRegularExpression.escapedPattern(for: String(character))
        }.joined()
    }

    /// A value of `Value` as `NamedValue.init(parsing:)` reads it: any case, `_` written as
    /// `_`, a space or a hyphen, spaces around.
    static func name<Value: NamedValue>(_ type: Value.Type) -> String {
        "[\(spaces)]*(?:" + Value.allCases.map { caseless($0.rawValue, underscore: "[ _-]") }.joined(separator: "|") + ")[\(spaces)]*"
    }

    /// Names of `Value` separated by commas, as the task list's `status` reads them (empty
    /// items are skipped).
    static func names<Value: NamedValue>(_ type: Value.Type) -> String {
        let one = name(type)
        return whole(",*(?:\(one)(?:,+\(one))*)?,*")
    }

    /// An import's `delimiter` as `ImportOptions` reads it: `auto` or one of `CSVDelimiter`'s
    /// spellings, in any case, nothing around it.
    static var delimiter: String {
        whole(([ImportOptions.automaticDelimiter] + CSVDelimiter.allCases.flatMap(\.spellings)).map { caseless($0) }.joined(separator: "|"))
    }

    /// An import's `encoding` as `TextEncoding(argument:)` reads it: one of its `argumentKeys`,
    /// in any case, with anything but letters and digits around and between its characters
    /// (`UTF-8`, `iso 8859-1`, `Windows_1252`). The pattern spells letters and digits as ASCII's
    /// alone, so it also takes a name with a letter or digit of another script (or a combining
    /// mark) inside, which the importer refuses (422); it refuses nothing the importer takes.
    static var encoding: String {
        let other = "[^A-Za-z0-9]*"
        let keys = TextEncoding.allCases.flatMap(\.argumentKeys).map { key in key.map { caseless(String($0)) }.joined(separator: other) }
        return whole(other + "(?:" + keys.joined(separator: "|") + ")" + other)
    }

    /// A store id as the routes read one (`Int64(_:)`, above 0): a token's `{id}`.
    static var id: String { whole(integer(1...Int64.max)) }

    /// A user named in a path as `UserRef` reads one: `#` and an id, or an id alone, with spaces
    /// around; or an email as `UserFields.email` takes it once `UserRef` trimmed its spaces: white
    /// space around, then one `@` with something before it and, after it, a domain holding a
    /// `.` that neither starts nor ends it, without NUL, white space, a control character or bidi
    /// control (`UserFields.isHiddenControl`) or a character that lower-cases into plain ASCII
    /// (`UserFields.caseFoldsIntoASCII`). Anything else names no one (404; only a user stored
    /// before such addresses were refused is still found by one). The length
    /// (`UserFields.emailMaxLength`, counted composed) is the description's: a pattern cannot add
    /// the two parts' lengths without lookahead.
    /// Built once: the document describes the path parameter on every route that has it.
    static let user: String = {
        let folding = members { !$0.isASCII && UserFields.caseFoldsIntoASCII(Character($0)) }
        let refused = "\(nul)\(whitespace)\(hiddenControls)@\(folding)"
        let character = "[^\(refused)]", edge = "[^\(refused).]"
        let email = "[\(spaces)\(whitespace)]*\(character)+@\(edge)\(character)*\\.\(character)*\(edge)[\(spaces)\(whitespace)]*"
        return whole("[\(spaces)]*#?\(integer(1...Int64.max))[\(spaces)]*|\(email)")
    }()

    /// A team key as `TeamKey` reads it: letters and digits starting with a letter, any case.
    static var teamKey: String { padded(teamKeyCore) }

    private static var teamKeyCore: String {
        "[A-Za-z][A-Za-z0-9]{\(TeamKey.lengthRange.lowerBound - 1),\(TeamKey.lengthRange.upperBound - 1)}"
    }

    /// A whole number in `range` as Swift's `Int(_:)` reads it: a `+` and zeros may lead.
    static func integer(_ range: ClosedRange<Int64>) -> String {
        precondition(range.lowerBound > 0)
        var alternatives: [String] = []
        let (low, high) = (String(range.lowerBound), String(range.upperBound))
        for digits in low.count...high.count {
            let from = digits == low.count ? low : "1" + String(repeating: "0", count: digits - 1)
            let to = digits == high.count ? high : String(repeating: "9", count: digits)
            alternatives += sameLength(Array(from), Array(to))
        }
        return #"\+?0*(?:"# + alternatives.joined(separator: "|") + ")"
    }

    /// The numbers from `low` to `high`, written with as many digits as each other.
    private static func sameLength(_ low: [Character], _ high: [Character]) -> [String] {
        guard let first = low.first, let last = high.first else { return [""] }
        let (lowRest, highRest) = (Array(low.dropFirst()), Array(high.dropFirst()))
        if first == last { return sameLength(lowRest, highRest).map { String(first) + $0 } }
        let any = lowRest.isEmpty ? "" : "[0-9]{\(lowRest.count)}"
        let lowFull = lowRest.allSatisfy { $0 == "0" }, highFull = highRest.allSatisfy { $0 == "9" }
        let lowDigit = first.wholeNumberValue!, highDigit = last.wholeNumberValue!
        var alternatives: [String] = []
        if !lowFull { alternatives += sameLength(lowRest, Array(repeating: "9", count: lowRest.count)).map { String(first) + $0 } }
        let middle = (lowFull ? lowDigit : lowDigit + 1, highFull ? highDigit : highDigit - 1)
        if middle.0 <= middle.1 { alternatives.append((middle.0 == middle.1 ? "\(middle.0)" : "[\(middle.0)-\(middle.1)]") + any) }
        if !highFull { alternatives += sameLength(Array(repeating: "0", count: highRest.count), highRest).map { String(last) + $0 } }
        return alternatives
    }

    /// A real date written YYYY-MM-DD, years 0001 to 9999, as `CalendarDate(iso:)` reads it.
    static var date: String {
        let year = "(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)"
        let leapYear = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
        let dayOfAnyYear = "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
        return padded("\(year)-\(dayOfAnyYear)|\(leapYear)-02-29")
    }

    /// A token lifetime as `TokenFields.lifetime` reads it: a count and a unit, in its range.
    static var lifetime: String {
        let min = Int64(TokenFields.minLifetime), max = Int64(TokenFields.maxLifetime)
        let units = TokenFields.lifetimeUnits.map { unit, seconds in
            let seconds = Int64(seconds)
            return "(?:\(integer(((min + seconds - 1) / seconds)...(max / seconds))))\(unit)"
        }
        return padded(units.joined(separator: "|"))
    }

    /// A page's cursor as the routes take one back (`TaskCursor`, `HistoryCursor`): base64url,
    /// unpadded, not empty. Opaque: only a cursor a page handed out names a place (another
    /// well-formed one is 422 all the same).
    static var cursor: String { whole("[A-Za-z0-9_-]+") }

    /// An import's `map` as `ColumnOverride(argument:)` reads it: a field's name or synonym
    /// (`ImportField.argumentKeys`) in any case, with white space, `-` and `_` anywhere in it,
    /// then `=` and the column's header, which is not empty (it may hold `=` and spaces).
    static var columnOverride: String {
        let separators = "[\(whitespace)_-]*"
        let names = Set(ImportField.allCases.flatMap(\.argumentKeys)).sorted().map { key in
            key.map { caseless(String($0)) }.joined(separator: separators)
        }
        return whole(separators + "(?:" + names.joined(separator: "|") + ")" + separators + "=[\\s\\S]+")
    }

    /// An `If-Match` value as `ETag.condition` reads it: `*`, or entity tags (`"3"`, `W/"3"`)
    /// separated by commas (empty items allowed), at least one.
    static var entityTags: String {
        let tag = #"(?:W/)?"[^\u0000-\u0020\u0022\u007F]*""#
        return padded(#"\*|[ \t,]*"# + tag + #"(?:[ \t]*,[ \t,]*"# + tag + #")*[ \t,]*"#)
    }

    /// A task key as `TaskKey(parsing:)` reads it: a team key, a hyphen and a positive number.
    static var taskKey: String {
        padded("\(teamKeyCore)[\(spaces)]*-\(integer(1...Int64.max))")
    }
}
