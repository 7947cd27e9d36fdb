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
