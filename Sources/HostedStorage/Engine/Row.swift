/// A result's column names and where each is, built once per statement and shared by its rows.
public final class ResultColumns: Sendable {
    public let names: [String]
    /// Each name's first position (a join may repeat a name; the first wins, as in SQL).
    private let positions: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func position(of name: String) -> Int? { positions[name] }
}

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
