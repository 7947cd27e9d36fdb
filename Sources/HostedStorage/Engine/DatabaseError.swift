/// A storage failure, typed by cause. `description` is deliberately generic so no SQL, value or
/// server message leaks into a response; `debugDescription` carries the detail for the log.
public enum DatabaseError: Error, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A unique constraint was violated (SQLSTATE 23505, SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY).
    case uniqueViolation(constraint: String)
    /// The transaction lost a race and may be retried (SQLSTATE 40001/40P01).
    case serializationFailure
    /// The database stayed locked past the busy timeout (SQLite).
    case busy
    /// The connection to the server is gone; a new one will be opened.
    case connectionLost(message: String)
    /// The database could not be opened or reached.
    case cannotConnect(message: String)
    /// A value the engine cannot store (SQLSTATE class 22: a NUL in text, a number out of range).
    /// Inputs are checked before they reach the store; this is the second line.
    case invalidValue(message: String)
    /// A column did not hold the expected type.
    case decoding(column: String)
    /// Anything else, with the engine's code (SQLSTATE or SQLite result code) and message.
    case other(code: String, message: String)

    public var description: String { "database error" }

    /// Text holding a NUL byte: PostgreSQL's text cannot, and SQLite's C API would cut it
    /// short. Both stores refuse it rather than store less than they were given.
    static let textWithNUL = DatabaseError.invalidValue(message: "text parameter contains NUL")

    public var debugDescription: String {
        switch self {
        case .uniqueViolation(let constraint): "unique violation on \(constraint)"
        case .serializationFailure: "serialization failure"
        case .busy: "database busy"
        case .connectionLost(let message): "connection lost: \(message)"
        case .cannotConnect(let message): "cannot connect: \(message)"
        case .invalidValue(let message): "invalid value: \(message)"
        case .decoding(let column): "cannot decode column \(column)"
        case .other(let code, let message): "[\(code)] \(message)"
        }
    }
}
