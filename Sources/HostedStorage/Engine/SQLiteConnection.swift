import CSQLite3

/// One SQLite connection in WAL mode with a busy timeout and a prepared-statement cache.
/// Owns its C handles and frees them in `deinit`.
final class SQLiteConnection: DatabaseConnection {
    private let handle: OpaquePointer
    /// `sqlite3_total_changes64` when this connection last counted a commit.
    private var changesCounted: Int64 = 0
    /// The commits of this process to the file this connection opened (nil: not a file).
    private let commits: SQLiteCommits?
    private var statements = StatementCache<OpaquePointer>()
    /// Each prepared statement's result columns, read from its first result (as on PostgreSQL).
    private var layouts: [OpaquePointer: ResultColumns] = [:]

    /// How long a writer waits for the write lock before `DatabaseError.busy`.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    init(path: String) throws(DatabaseError) {
        _ = Self.configured
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)  // a failed open still returns a handle that must be closed
            throw .cannotConnect(message: message)
        }
        handle = db
        commits = SQLiteCommits.ofFile(at: path)
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
        try executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;")
    }

    /// Process-wide settings, applied once before the first connection opens. SQLite's memory
    /// statistics are off: hosted reads none of them, and keeping them makes every allocation take
    /// one mutex shared by all connections (measured: a quarter of the futex calls of a poll).
    private static let configured: Void = { _ = hosted_sqlite_disable_memory_statistics() }()

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func run(_ sql: String, bindings parameters: [SQLValue]) throws(DatabaseError) -> [Row] {
        let statement = try prepared(sql)
        defer { countCommit() }  // last: after the reset has ended the statement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(parameters, to: statement)
        var rows: [Row] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc) }
            let columns = layout(of: statement)
            rows.append(Row(layout: columns, values: (0..<Int32(columns.names.count)).map { value(statement, $0) }))
        }
        return rows
    }

    /// The statement's result columns, named once and shared by every row it returns. Checked
    /// against its column count: a schema change re-prepares a statement behind our back.
    private func layout(of statement: OpaquePointer) -> ResultColumns {
        let count = sqlite3_column_count(statement)
        if let known = layouts[statement], known.names.count == Int(count) { return known }
        let columns = ResultColumns((0..<count).map { String(cString: sqlite3_column_name(statement, $0)) })
        layouts[statement] = columns
        return columns
    }

    func executeScript(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        countCommit()
        guard rc == SQLITE_OK else {
            throw mapped(rc, message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// Moves `commits` once the changes this connection made are committed: outside a
    /// transaction (autocommit again) with more rows changed than when it last counted. A
    /// transaction rolled back counts too, which only costs a read.
    private func countCommit() {
        guard sqlite3_get_autocommit(handle) != 0 else { return }
        let changes = sqlite3_total_changes64(handle)
        guard changes != changesCounted else { return }
        changesCounted = changes
        commits?.count.add(1, ordering: .releasing)
    }

    private func prepared(_ sql: String) throws(DatabaseError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        statements[sql] = statement
        return statement
    }

    /// Binds `$1`, `$2`, … by name, so SQL written for PostgreSQL runs unchanged here.
    private func bind(_ parameters: [SQLValue], to statement: OpaquePointer) throws(DatabaseError) {
        for (offset, parameter) in parameters.enumerated() {
            let index = sqlite3_bind_parameter_index(statement, "$\(offset + 1)")
            guard index > 0 else { throw .other(code: "bind", message: "no parameter $\(offset + 1)") }
            let rc: Int32
            switch parameter {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let value): rc = sqlite3_bind_int64(statement, index, value)
            case .text(let value):
                // A NUL would end the C string here: refused, as on PostgreSQL.
                guard !value.utf8.contains(0) else { throw .textWithNUL }
                rc = sqlite3_bind_text(statement, index, value, -1, hosted_sqlite_transient())
            case .blob(let value):
                rc = value.withUnsafeBytes {
                    sqlite3_bind_blob64(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                        sqlite3_uint64($0.count), hosted_sqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_NULL: return .null
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let base = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default:
            guard let text = sqlite3_column_text(statement, column) else { return .null }
            return .text(String(cString: text))
        }
    }

    private func error(_ rc: Int32) -> DatabaseError {
        mapped(rc, String(cString: sqlite3_errmsg(handle)))
    }

    private func mapped(_ rc: Int32, _ message: String) -> DatabaseError {
        switch rc {
        case hosted_sqlite_constraint_unique, hosted_sqlite_constraint_primarykey:
            return .uniqueViolation(constraint: message)
        case _ where rc & 0xFF == SQLITE_BUSY || rc & 0xFF == SQLITE_LOCKED:
            return .busy
        default:
            return .other(code: "SQLITE_\(rc)", message: message)
        }
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
