/// The lines one text changes of another (what `git diff` would count), for "compare with the
/// last commit": the equal start and end are skipped, the middle is aligned line by line when
/// it is small and reported whole when it is not. A long changed line is shown as the few
/// characters around what changed in it.
package enum StudioTextDiff {
    package struct Hunk: Codable, Sendable, Equatable {
        /// The first changed line, 1-based, in the old and the new text.
        package var oldLine: Int
        package var newLine: Int
        /// The lines, each starting with `-` or `+` (long lines cut to what changed).
        package var lines: [String]
    }

    /// Lines shown per hunk, and characters either side of a change in a long line.
    static let maxLines = 40
    static let context = 40
    /// The largest middle (old lines × new lines) aligned by longest common subsequence.
    static let maxCells = 4_000_000

    /// How many elements `a` and `b` share at the start, and then at the end (not overlapping
    /// the start): what a one-stretch change keeps.
    package static func commonEnds<T: Equatable>(_ a: [T], _ b: [T]) -> (prefix: Int, suffix: Int) {
        var prefix = 0
        while prefix < a.count && prefix < b.count && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
            && a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
        {
            suffix += 1
        }
        return (prefix, suffix)
    }

    package static func compare(_ old: [UInt8], _ new: [UInt8]) -> (added: Int, removed: Int, hunks: [Hunk]) {
        let a = lines(old)
        let b = lines(new)
        let (prefix, suffix) = commonEnds(a, b)
        let x = Array(a[prefix..<a.count - suffix])
        let y = Array(b[prefix..<b.count - suffix])
        if x.isEmpty && y.isEmpty { return (0, 0, []) }
        var ops: [(Character, Int, Int)] = []  // ("-", i, _) or ("+", _, j) or ("=", i, j)
        if x.count * y.count <= maxCells {
            // Longest common subsequence, backwards.
            let n = x.count
            let m = y.count
            var table = [Int32](repeating: 0, count: (n + 1) * (m + 1))
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    table[i * (m + 1) + j] =
                        x[i] == y[j]
                        ? table[(i + 1) * (m + 1) + j + 1] + 1
                        : max(table[(i + 1) * (m + 1) + j], table[i * (m + 1) + j + 1])
                }
            }
            var i = 0
            var j = 0
            while i < n || j < m {
                if i < n && j < m && x[i] == y[j] {
                    ops.append(("=", i, j))
                    i += 1
                    j += 1
                } else if i < n && (j == m || table[(i + 1) * (m + 1) + j] >= table[i * (m + 1) + j + 1]) {
                    // Removed lines before added ones, as `git diff` shows them.
                    ops.append(("-", i, j))
                    i += 1
                } else {
                    ops.append(("+", i, j))
                    j += 1
                }
            }
        } else {
            ops = x.indices.map { ("-", $0, 0) } + y.indices.map { ("+", x.count, $0) }
        }
        var hunks: [Hunk] = []
        var current: Hunk? = nil
        var added = 0
        var removed = 0
        for (k, op) in ops.enumerated() {
            if op.0 == "=" {
                if let hunk = current { hunks.append(hunk) }
                current = nil
                continue
            }
            if current == nil { current = Hunk(oldLine: prefix + op.1 + 1, newLine: prefix + op.2 + 1, lines: []) }
            if op.0 == "-" { removed += 1 } else { added += 1 }
            guard current!.lines.count < maxLines else { continue }
            // A one-for-one changed line is shown as what changed in it.
            if op.0 == "-", k + 1 < ops.count, ops[k + 1].0 == "+", k == 0 || ops[k - 1].0 == "=",
                k + 2 == ops.count || ops[k + 2].0 == "="
            {
                let (before, after) = excerpt(x[op.1], y[ops[k + 1].2])
                current!.lines.append("-" + before)
                current!.lines.append("+" + after)
            } else if op.0 == "+", k > 0, ops[k - 1].0 == "-", k < 2 || ops[k - 2].0 == "=",
                k + 1 == ops.count || ops[k + 1].0 == "="
            {
                continue
            } else {
                current!.lines.append(String(op.0) + cut(op.0 == "-" ? x[op.1] : y[op.2]))
            }
        }
        if let hunk = current { hunks.append(hunk) }
        return (added, removed, hunks)
    }

    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        if bytes.isEmpty { return [] }
        var out = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if bytes.last == 0x0A { out.removeLast() }
        return out
    }

    static func cut(_ line: ArraySlice<UInt8>) -> String {
        let text = String(decoding: line, as: UTF8.self)
        return text.count > 2 * context + 40 ? String(text.prefix(2 * context + 40)) + "…" : text
    }

    /// The changed part of two versions of a line, with `context` characters either side.
    static func excerpt(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> (String, String) {
        let x = Array(a)
        let y = Array(b)
        if x.count <= 2 * context + 40 && y.count <= 2 * context + 40 { return (cut(a), cut(b)) }
        var p = 0
        while p < x.count && p < y.count && x[p] == y[p] { p += 1 }
        var s = 0
        while s < x.count - p && s < y.count - p && x[x.count - 1 - s] == y[y.count - 1 - s] { s += 1 }
        func show(_ bytes: [UInt8]) -> String {
            var from = max(0, p - context)
            while from > 0 && bytes[from] & 0xC0 == 0x80 { from -= 1 }
            var to = min(bytes.count, bytes.count - s + context)
            while to < bytes.count && bytes[to] & 0xC0 == 0x80 { to += 1 }
            return (from > 0 ? "…" : "") + String(decoding: bytes[from..<to], as: UTF8.self)
                + (to < bytes.count ? "…" : "")
        }
        return (show(x), show(y))
    }
}
