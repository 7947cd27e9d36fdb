import CLibPQ
import Glibc

/// One libpq connection with one prepared statement per distinct SQL text.
/// Owns its `PGconn` and finishes it in `deinit`.
final class PostgresConnection: DatabaseConnection {
    private let handle: OpaquePointer
    private var statementNames = StatementCache<String>()
    /// Statements named so far: names are never reused, even for a prepare that failed.
    private var statementsNamed = 0
    /// Each prepared statement's result columns and their types, read from the first result (a
    /// statement's columns never change), so later results reuse the same strings.
    private var resultColumns: [String: (layout: ResultColumns, types: [Oid])] = [:]
    /// Set when the server refused a write as read-only (SQLSTATE 25006): it is no longer the
    /// primary, so this connection is not used again (`isUsable`).
    private(set) var refusedWrite = false

    /// Type OIDs decoded specially; every other type is returned as text.
    private enum TypeOID {
        static let bool: Oid = 16
        static let bytea: Oid = 17
        static let int8: Oid = 20
        static let int2: Oid = 21
        static let int4: Oid = 23
    }

    /// What libpq is given: the configured URL with GSS encryption off unless it names
    /// `gssencmode` itself. libpq's default (`prefer`) initialises Kerberos on every connect, for
    /// nothing here, and a connect still under way when the process exits then trips an
    /// assertion in libgssapi_krb5's exit handler (`r == 0` in errmap.h: exit code 134, seen in
    /// CI on a node stopping while a connection was being opened).
    static func target(_ url: String) -> String {
        guard !url.contains("gssencmode") else { return url }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return url + (url.contains("?") ? "&" : "?") + "gssencmode=disable"
        }
        return "gssencmode=disable " + url
    }

    init(url: String) throws(DatabaseError) {
        guard let connection = PQconnectdb(Self.target(url)) else { throw .cannotConnect(message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw .cannotConnect(message: message)
        }
        handle = connection
        // Server notices ("relation already exists, skipping") are not ours to print.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// The server ends a connection (restart, failover, `pg_terminate_backend`) with a FATAL
    /// message and then end-of-file; an idle pooled connection has nothing to read otherwise. A
    /// non-blocking look at the socket tells, without a round trip.
    var isUsable: Bool {
        guard PQstatus(handle) == CONNECTION_OK, !refusedWrite else { return false }
        // An idle pooled connection has nothing to read; anything there is most likely the
        // server's FATAL before it hangs up (and at worst a notice): a fresh connection is cheaper
        // than finding out by failing a request.
        return peek() == .nothing
    }

    private enum Peek { case nothing, pending, closed }

    private func peek() -> Peek {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return .closed }
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count > 0 { return .pending }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .nothing }
        return .closed
    }

    func run(_ sql: String, bindings parameters: [SQLValue]) throws(DatabaseError) -> [Row] {
        let name = try prepare(sql, parameterCount: parameters.count)
        let result = try execute(name: name, parameters)
        defer { PQclear(result) }
        return try rows(of: result, statement: name)
    }

    func executeScript(_ sql: String) throws(DatabaseError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    private func prepare(_ sql: String, parameterCount: Int) throws(DatabaseError) -> String {
        if let name = statementNames[sql] { return name }
        let name = nextStatementName()
        let result = PQprepare(handle, name, sql, 0, nil)
        defer { PQclear(result) }
        try check(result)
        statementNames[sql] = name
        return name
    }

    /// Text parameters travel in text format, blobs in binary format; results come back as text.
    private func execute(name: String, _ parameters: [SQLValue]) throws(DatabaseError) -> OpaquePointer? {
        let result = try Self.withParameters(parameters) { count, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 0)
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`. Every parameter's bytes go
    /// into one buffer (text NUL-terminated), and libpq gets pointers into it: one allocation for
    /// the values, whatever their number.
    private static func withParameters<T>(
        _ parameters: [SQLValue],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> T
    ) throws(DatabaseError) -> T {
        var storage: [UInt8] = []
        storage.reserveCapacity(128)
        var starts: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        starts.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter {
            case .null:
                starts.append(nil); lengths.append(0); formats.append(0)
            case .integer(let value):
                starts.append(storage.count); lengths.append(0); formats.append(0)
                storage.append(contentsOf: String(value).utf8); storage.append(0)
            case .text(var value):
                // No NUL (`DatabaseError.textWithNUL`). Over the contiguous bytes: a poll binds two ids.
                let copied = value.withUTF8 { bytes in
                    guard !bytes.contains(0) else { return false }
                    starts.append(storage.count); lengths.append(0); formats.append(0)
                    storage.append(contentsOf: bytes); storage.append(0)
                    return true
                }
                guard copied else { throw .textWithNUL }
            case .blob(let bytes):
                guard let length = Int32(exactly: bytes.count) else {
                    throw .invalidValue(message: "binary parameter too large")
                }
                starts.append(storage.count); lengths.append(length); formats.append(1)
                storage.append(contentsOf: bytes)
            }
        }
        storage.append(0)  // a base address even when every parameter is NULL or empty
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values = starts.map { start in start.map { base + $0 } }
            return body(Int32(parameters.count), values, lengths, formats)
        }
    }

    private func rows(of result: OpaquePointer?, statement: String) throws(DatabaseError) -> [Row] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        guard rowCount > 0 else { return [] }
        let layout: ResultColumns, types: [Oid]
        if let known = resultColumns[statement], known.layout.names.count == Int(columnCount) {
            (layout, types) = known
        } else {
            layout = ResultColumns((0..<columnCount).map { String(cString: PQfname(result, $0)) })
            types = (0..<columnCount).map { PQftype(result, $0) }
            resultColumns[statement] = (layout, types)
        }
        var rows: [Row] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(try value(result, row, column, type: types[Int(column)]))
            }
            rows.append(Row(layout: layout, values: values))
        }
        return rows
    }

    private func value(_ result: OpaquePointer?, _ row: Int32, _ column: Int32, type: Oid) throws(DatabaseError) -> SQLValue {
        if PQgetisnull(result, row, column) == 1 { return .null }
        guard let raw = PQgetvalue(result, row, column) else { return .null }
        switch type {
        case TypeOID.int8, TypeOID.int4, TypeOID.int2:
            let text = UnsafeRawBufferPointer(start: raw, count: Int(PQgetlength(result, row, column)))
            guard let value = Self.integer(text) else { throw .decoding(column: String(cString: PQfname(result, column))) }
            return .integer(value)
        case TypeOID.bool:
            return .integer(raw.pointee == CChar(UInt8(ascii: "t")) ? 1 : 0)
        case TypeOID.bytea:
            var length = 0
            guard let bytes = PQunescapeBytea(UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), &length) else {
                throw .decoding(column: String(cString: PQfname(result, column)))
            }
            defer { PQfreemem(bytes) }
            return .blob(Array(UnsafeBufferPointer(start: bytes, count: length)))
        default:
            let length = Int(PQgetlength(result, row, column))
            return .text(String(decoding: UnsafeRawBufferPointer(start: raw, count: length), as: UTF8.self))
        }
    }

    /// An integer column's text (`-?[0-9]+`, as PostgreSQL writes int2, int4 and int8) read in
    /// place, without a `String` per value; nil for anything else, or beyond `Int64`.
    static func integer(_ text: UnsafeRawBufferPointer) -> Int64? {
        let negative = text.first == UInt8(ascii: "-")
        let digits = negative ? UnsafeRawBufferPointer(rebasing: text.dropFirst()) : text
        guard !digits.isEmpty else { return nil }
        // Accumulated negatively: Int64.min has no positive counterpart.
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowMinus) = shifted.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowMinus else { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// Turns a failed result into a typed error by SQLSTATE, or into `connectionLost` when the
    /// connection itself is gone.
    private func check(_ result: OpaquePointer?) throws(DatabaseError) {
        let status = PQresultStatus(result)
        if result != nil, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return }
        let message = String(cString: PQerrorMessage(handle))
        if PQstatus(handle) != CONNECTION_OK { throw .connectionLost(message: message) }
        let sqlState = field(result, UInt8(ascii: "C")) ?? ""
        switch sqlState {
        case SQLState.uniqueViolation:
            throw .uniqueViolation(constraint: field(result, UInt8(ascii: "n")) ?? "")
        case SQLState.serializationFailure, SQLState.deadlockDetected:
            throw .serializationFailure
        case SQLState.readOnlySQLTransaction:
            refusedWrite = true
            throw .connectionLost(message: "the server is read-only (no longer the primary): " + message)
        case _ where sqlState.hasPrefix(SQLState.connectionExceptionClass)
            || sqlState.hasPrefix(SQLState.operatorInterventionClass):
            throw .connectionLost(message: message)
        case _ where sqlState.hasPrefix(SQLState.dataExceptionClass):
            throw .invalidValue(message: message)
        default:
            throw .other(code: sqlState.isEmpty ? "libpq" : sqlState, message: message)
        }
    }

    private func field(_ result: OpaquePointer?, _ code: UInt8) -> String? {
        guard let result, let value = PQresultErrorField(result, Int32(code)) else { return nil }
        return String(cString: value)
    }
}

// MARK: - Pipeline mode (`PostgresPipeline`)

extension PostgresConnection {
    /// One result read from a connection in pipeline mode.
    enum PipelineResult {
        /// A statement's rows (none for a statement without any).
        case rows([Row])
        /// A statement failed.
        case failed(DatabaseError)
        /// A statement was not run, because an earlier one since the last sync failed.
        case aborted
        /// A sync point.
        case synced
        /// The end of the current statement's results.
        case end
    }

    /// Puts the connection in pipeline mode, non-blocking: statements are sent without waiting
    /// for the answers of those before them.
    func enterPipelineMode() throws(DatabaseError) {
        guard PQsetnonblocking(handle, 1) == 0, PQenterPipelineMode(handle) == 1 else {
            throw .connectionLost(message: String(cString: PQerrorMessage(handle)))
        }
    }

    /// The socket to wait on.
    var socket: Int32 { PQsocket(handle) }

    /// Queues `text` with its bindings (preparing it first if this connection has not). Returns
    /// the statement's name, and whether a prepare was queued ahead of it (its result comes first).
    /// A value the store cannot take (`invalidValue`) is refused before anything is sent.
    func send(_ text: String, bindings parameters: [SQLValue]) throws(DatabaseError) -> (name: String, preparing: Bool) {
        let known = statementNames[text]
        let name = known ?? nextStatementName()
        let sent = try Self.withParameters(parameters) { count, values, lengths, formats in
            if known == nil {
                guard PQsendPrepare(handle, name, text, 0, nil) == 1 else { return false }
                statementNames[text] = name
            }
            return PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0) == 1
        }
        guard sent else { throw lostConnection() }
        return (name, known == nil)
    }

    /// Forgets that `text` was prepared (its prepare was aborted or failed).
    func forgetPrepared(_ text: String) {
        statementNames[text] = nil
    }

    /// Queues a sync point: the statements since the last one commit (or roll back) together.
    func sync() throws(DatabaseError) {
        guard PQpipelineSync(handle) == 1 else { throw lostConnection() }
    }

    /// Sends what is queued; false if some is still waiting for room in the socket.
    func flush() throws(DatabaseError) -> Bool {
        switch PQflush(handle) {
        case 0: return true
        case 1: return false
        default: throw lostConnection()
        }
    }

    /// Reads whatever has arrived on the socket.
    func consumeInput() throws(DatabaseError) {
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { throw lostConnection() }
    }

    /// True while the next result has not fully arrived.
    var isBusy: Bool { PQisBusy(handle) == 1 }

    /// The next result; call only when `isBusy` is false. `name` is the statement it belongs to
    /// (its column layout is kept by name).
    func nextResult(of name: String) -> PipelineResult {
        guard let result = PQgetResult(handle) else { return .end }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_PIPELINE_SYNC: return .synced
        case PGRES_PIPELINE_ABORTED: return .aborted
        default:
            do {
                try check(result)
                return .rows(try rows(of: result, statement: name))
            } catch {
                return .failed(error)
            }
        }
    }

    private func nextStatementName() -> String {
        statementsNamed += 1
        return "s\(statementsNamed)"
    }

    private func lostConnection() -> DatabaseError {
        .connectionLost(message: String(cString: PQerrorMessage(handle)))
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
