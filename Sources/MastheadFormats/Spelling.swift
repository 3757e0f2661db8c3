/// "Did you mean" for mistyped names (commands, options, the keys of `catalog.json`), by edit
/// distance.
package enum Spelling {
    /// The candidate closest to `word`, when it is near enough to be what was meant: at most one
    /// edit (insertion, deletion, substitution or swap of neighbours) per three characters, and
    /// at least one; letter case is not counted. The first of equally close candidates wins.
    package static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = Self.distance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The number of insertions, deletions, substitutions and swaps of neighbouring characters
    /// that turn `a` into `b` (optimal string alignment distance).
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // rows[i][j]: the distance between the first i characters of a and the first j of b.
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitution = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[a.count][b.count]
    }

    /// `, did you mean 'x'?` when a candidate is close to `word`, else nothing.
    package static func suggestion(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { ", did you mean '\($0)'?" } ?? ""
    }
}
