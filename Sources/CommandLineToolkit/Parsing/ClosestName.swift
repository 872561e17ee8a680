/// Finds the declared name a mistyped word most likely meant, for "did you mean" hints.
enum ClosestName {
    /// The candidate nearest to `word` by prefix or edit distance, or nil when none is near enough.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        if word.count >= 2, let prefixed = candidates.first(where: { $0.hasPrefix(word) }) {
            return prefixed
        }
        let scored = candidates.map { ($0, editDistance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, min(word.count, best.0.count) / 3) ? best.0 : nil
    }

    /// Levenshtein distance with one rolling row.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
