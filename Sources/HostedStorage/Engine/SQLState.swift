/// PostgreSQL SQLSTATE codes Hosted reacts to, by name.
enum SQLState {
    static let uniqueViolation = "23505"
    static let serializationFailure = "40001"
    static let deadlockDetected = "40P01"
    /// A write on a read-only server: a standby, or a primary being demoted, reached by a
    /// connection made before a failover changed the roles (or through a proxy that moved).
    /// Nothing was written, and a new connection (`target_session_attrs=read-write`) finds the
    /// primary, so it is handled as a lost connection.
    static let readOnlySQLTransaction = "25006"
    /// Class 22: data exceptions (a NUL in text, a number out of range, a string too long).
    static let dataExceptionClass = "22"
    /// Class 08: connection exceptions.
    static let connectionExceptionClass = "08"
    /// Class 57P: operator intervention (admin shutdown, crash shutdown, cannot connect now).
    static let operatorInterventionClass = "57P"
}
