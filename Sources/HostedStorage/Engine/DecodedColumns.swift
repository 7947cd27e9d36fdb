import Foundation

/// Column texts and the values they decode to, at most `capacity` of them (emptied when full:
/// simpler than an LRU, and a miss only costs one decode; 0 keeps nothing, for a column that may
/// hold what redaction must erase). Texts longer than `longestText` are not kept, so the memory
/// held stays small.
///
/// `@unchecked Sendable`: `values` is only touched while holding `lock`.
final class DecodedColumns<T: Sendable>: @unchecked Sendable {
    let capacity: Int
    let longestText: Int
    /// The value of `[]` or `{}`, when the type has one.
    let empty: T?
    private let lock = NSLock()
    private var values: [String: T] = [:]

    init(capacity: Int = 1024, longestText: Int = 4096, empty: T?) {
        self.capacity = capacity
        self.longestText = longestText
        self.empty = empty
    }

    func value(for text: String) -> T? {
        guard capacity > 0, text.utf8.count <= longestText else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return values[text]
    }

    func remember(_ value: T, for text: String) {
        guard capacity > 0, text.utf8.count <= longestText else { return }
        lock.lock()
        defer { lock.unlock() }
        if values.count >= capacity { values.removeAll(keepingCapacity: true) }
        values[text] = value
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return values.count
    }
}
