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

    /// Decodes a column of a verification (its steps, metadata and approvals): `[]` and `{}`
    /// to `empty` without a decoder, anything else through `JSONDecoder`. (A memo of decoded
    /// texts was measured beside the decoded-row memo and bought nothing: docs/performance.md,
    /// "Caches and memos".)
    static func decode<T: Decodable>(_ type: T.Type, from text: String, column: String, empty: T) throws -> T {
        if text.utf8.count == 2, text == "[]" || text == "{}" { return empty }
        return try decode(type, from: text, column: column)
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
