import Foundation

/// Finds a JSON object that names one member twice.
///
/// RFC 8259 §4 leaves what such an object means to each reader, and readers differ:
/// Foundation's `JSONDecoder` keeps the first value; `JSONSerialization`, Python and JavaScript
/// keep the last. A request body that said `{"title": "a", "title": "b"}` would be read as one
/// thing by a proxy, a gateway's validator or a log, and applied as another; so request bodies
/// naming a member twice are refused.
///
/// Not a parser: the text is read only for its strings and brackets, and one that is not JSON
/// simply finds nothing (the decoder reports it). Names are compared as the decoder reads them,
/// escapes undone (`"\u0074itle"` is `title`).
enum JSONDuplicateNames {
    /// One level of nesting: an object's names so far and its current member, or an array's
    /// current index.
    private enum Level {
        case object(names: Set<String>, current: String?, expectingName: Bool)
        case array(index: Int)
    }

    /// The path (`changes.0.title`, or `title`) of the first member named twice in its object.
    static func first(in bytes: some Collection<UInt8>) -> String? {
        let text = Array(bytes)
        var levels: [Level] = []
        var at = 0
        while at < text.count {
            let byte = text[at]
            switch byte {
            case UInt8(ascii: "{"):
                levels.append(.object(names: [], current: nil, expectingName: true))
            case UInt8(ascii: "["):
                levels.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if levels.popLast() == nil { return nil }
            case UInt8(ascii: ","):
                switch levels.last {
                case .object(let names, let current, _)?: levels[levels.count - 1] = .object(names: names, current: current, expectingName: true)
                case .array(let index)?: levels[levels.count - 1] = .array(index: index + 1)
                case nil: return nil
                }
            case UInt8(ascii: "\""):
                guard let end = Self.endOfString(in: text, from: at + 1) else { return nil }
                if case .object(var names, _, true)? = levels.last {
                    guard let name = Self.name(text[(at + 1)..<end]) else { return nil }
                    if !names.insert(name).inserted { return Self.path(levels.dropLast(), then: name) }
                    levels[levels.count - 1] = .object(names: names, current: name, expectingName: false)
                }
                at = end
            default:
                break
            }
            at += 1
        }
        return nil
    }

    /// The index of the quote that closes the string whose first byte is at `start`.
    private static func endOfString(in text: [UInt8], from start: Int) -> Int? {
        var at = start
        while at < text.count {
            switch text[at] {
            case UInt8(ascii: "\\"): at += 2
            case UInt8(ascii: "\""): return at
            default: at += 1
            }
        }
        return nil
    }

    /// A member's name as the decoder reads it: escapes undone, when it has any.
    private static func name(_ raw: ArraySlice<UInt8>) -> String? {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]))
    }

    private static func path(_ levels: ArraySlice<Level>, then name: String) -> String {
        var parts: [String] = []
        for level in levels {
            switch level {
            case .object(_, let current, _): parts.append(current ?? "")
            case .array(let index): parts.append(String(index))
            }
        }
        return (parts + [name]).joined(separator: ".")
    }
}
