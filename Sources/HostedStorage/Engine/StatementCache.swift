/// Prepared statements by their SQL text. Looked up on every query, so the text is not hashed
/// (a poll's statement is about 1 KB): candidates are found by length, then compared, and a
/// statement whose text is a constant compares as the same storage at once.
struct StatementCache<Value> {
    private var byLength: [Int: [(sql: String, value: Value)]] = [:]
    private(set) var count = 0

    subscript(_ sql: String) -> Value? {
        get {
            guard let candidates = byLength[sql.utf8.count] else { return nil }
            for candidate in candidates where candidate.sql == sql { return candidate.value }
            return nil
        }
        set {
            let length = sql.utf8.count
            var candidates = byLength[length] ?? []
            if let index = candidates.firstIndex(where: { $0.sql == sql }) {
                if let newValue { candidates[index].value = newValue } else { candidates.remove(at: index); count -= 1 }
            } else if let newValue {
                candidates.append((sql, newValue))
                count += 1
            }
            byLength[length] = candidates.isEmpty ? nil : candidates
        }
    }

    var values: [Value] { byLength.values.flatMap { $0.map(\.value) } }
}
