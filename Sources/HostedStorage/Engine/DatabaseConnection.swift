/// One open connection. Not thread-safe: a connection is used by one thread at a time, which
/// `Database` guarantees by handing it out from its pool.
public protocol DatabaseConnection: AnyObject {
    /// Runs one statement's text with its bind values (`$1`, `$2`, … in both dialects) and
    /// returns its rows. Callers write `query(_ sql: SQL)`, which builds both safely.
    func run(_ text: String, bindings: [SQLValue]) throws(DatabaseError) -> [Row]
    /// Runs a script of several statements without parameters (migrations only).
    func executeScript(_ sql: String) throws(DatabaseError)
    /// False when the connection is known to be dead before anything is sent on it (the server
    /// closed it while it sat in the pool). A cheap local check, no round trip.
    var isUsable: Bool { get }
}

extension DatabaseConnection {
    public var isUsable: Bool { true }

    /// Runs one statement; every value interpolated into `sql` is a bind parameter.
    @discardableResult
    public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
        try run(sql.text, bindings: sql.bindings)
    }
}
