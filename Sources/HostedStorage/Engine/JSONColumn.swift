import Foundation
import HostedCore

/// Values kept as JSON text in a column (workflow steps, step states, metadata).
enum JSONColumn {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes a column read on every poll (a verification's steps, metadata and approvals):
    /// empty collections without a decoder, anything else through `memo`, a bounded map from the
    /// exact text to its value (decoding is a pure function of the text, so a hit is always right;
    /// verifications at the same point of the same workflow share their steps' text).
    static func decode<T: Decodable & Sendable>(_ type: T.Type, from text: String, column: String,
                                                 memo: DecodedColumns<T>) throws -> T {
        if let empty = memo.empty, text.utf8.count == 2, text == "[]" || text == "{}" { return empty }
        if let known = memo.value(for: text) { return known }
        let value = try decode(type, from: text, column: column)
        memo.remember(value, for: text)
        return value
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, column: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw DatabaseError.decoding(column: column)
        }
    }
}

extension Row {
    func date(_ column: String) throws -> Date { Date(unixMilliseconds: try int(column)) }
    func optionalDate(_ column: String) throws -> Date? { try optionalInt(column).map(Date.init(unixMilliseconds:)) }
}

extension SQLValue {
    static func date(_ date: Date?) -> SQLValue { date.map { .integer($0.unixMilliseconds) } ?? .null }
    static func optionalText(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
}

/// Column texts and the values they decode to, at most `capacity` of them (emptied when full:
/// simpler than an LRU, and a miss only costs one decode; 0 keeps nothing, for a column that may
/// hold what redaction must erase). Texts longer than `longestText` are not kept, so the memory
/// held stays small.
final class DecodedColumns<T: Sendable>: Sendable {
    let capacity: Int
    let longestText: Int
    /// The value of `[]` or `{}`, when the type has one.
    let empty: T?
    /// `Guarded`, not `Mutex`: the storage tests run this under ThreadSanitizer (see `Guarded`).
    private let values = Guarded<[String: T]>([:])

    init(capacity: Int = 1024, longestText: Int = 4096, empty: T?) {
        self.capacity = capacity
        self.longestText = longestText
        self.empty = empty
    }

    func value(for text: String) -> T? {
        guard capacity > 0, text.utf8.count <= longestText else { return nil }
        return values.withLock { $0[text] }
    }

    func remember(_ value: T, for text: String) {
        guard capacity > 0, text.utf8.count <= longestText else { return }
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[text] = value
        }
    }

    var count: Int { values.withLock { $0.count } }
}
