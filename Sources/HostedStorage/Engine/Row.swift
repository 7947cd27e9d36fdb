/// One result row, with typed accessors that throw `DatabaseError.decoding` on a type mismatch.
public struct Row: Sendable {
    public let layout: ResultColumns
    public let values: [SQLValue]

    public init(layout: ResultColumns, values: [SQLValue]) {
        self.layout = layout
        self.values = values
    }

    /// The named column's value; `.null` when the result has no such column. A hashed lookup:
    /// a verification's decoding reads 25 columns by name on every poll.
    public subscript(_ column: String) -> SQLValue {
        guard let index = layout.position(of: column), index < values.count else { return .null }
        return values[index]
    }

    public func string(_ column: String) throws -> String {
        try Self.text(self[column], column)
    }

    public func optionalString(_ column: String) throws -> String? {
        let value = self[column]
        if case .null = value { return nil }
        return try Self.text(value, column)
    }

    private static func text(_ value: SQLValue, _ column: String) throws -> String {
        guard case .text(let text) = value else { throw DatabaseError.decoding(column: column) }
        return text
    }

    public func int(_ column: String) throws -> Int64 {
        try Self.int(self[column], column)
    }

    private static func int(_ value: SQLValue, _ column: String) throws -> Int64 {
        switch value {
        case .integer(let value): return value
        // PostgreSQL's text protocol returns numbers as text; parse them strictly.
        case .text(let text): if let value = Int64(text) { return value }
        default: break
        }
        throw DatabaseError.decoding(column: column)
    }

    public func optionalInt(_ column: String) throws -> Int64? {
        let value = self[column]
        if case .null = value { return nil }
        return try Self.int(value, column)
    }

    public func blob(_ column: String) throws -> [UInt8] {
        guard case .blob(let value) = self[column] else { throw DatabaseError.decoding(column: column) }
        return value
    }
}
