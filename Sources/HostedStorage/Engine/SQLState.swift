/// PostgreSQL SQLSTATE codes Hosted reacts to, by name.
enum SQLState {
    static let uniqueViolation = "23505"
    static let serializationFailure = "40001"
    static let deadlockDetected = "40P01"
    /// Class 22: data exceptions (a NUL in text, a number out of range, a string too long).
    static let dataExceptionClass = "22"
    /// Class 08: connection exceptions.
    static let connectionExceptionClass = "08"
    /// Class 57P: operator intervention (admin shutdown, crash shutdown, cannot connect now).
    static let operatorInterventionClass = "57P"
}
