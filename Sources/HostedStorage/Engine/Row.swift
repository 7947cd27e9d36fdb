/// One result row, with typed accessors that throw `DatabaseError.decoding` on a type mismatch.
public struct Row: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ column: String) -> SQLValue {
        // Lengths first (O(1) for native strings): most names are told apart without comparing.
        let length = column.utf8.count
        guard let index = columns.firstIndex(where: { $0.utf8.count == length && $0 == column }) else { return .null }
        return values[index]
    }

    public func string(_ column: String) throws -> String {
        guard case .text(let value) = self[column] else { throw DatabaseError.decoding(column: column) }
        return value
    }

    public func optionalString(_ column: String) throws -> String? {
        if case .null = self[column] { return nil }
        return try string(column)
    }

    public func int(_ column: String) throws -> Int64 {
        switch self[column] {
        case .integer(let value): return value
        // PostgreSQL's text protocol returns numbers as text; parse them strictly.
        case .text(let text): if let value = Int64(text) { return value }
        default: break
        }
        throw DatabaseError.decoding(column: column)
    }

    public func optionalInt(_ column: String) throws -> Int64? {
        if case .null = self[column] { return nil }
        return try int(column)
    }

    public func blob(_ column: String) throws -> [UInt8] {
        guard case .blob(let value) = self[column] else { throw DatabaseError.decoding(column: column) }
        return value
    }
}
