/// Where the server reports finished requests and its own errors.
public protocol ServerLog: Sendable {
    func access(_ entry: AccessLogEntry)
    /// An unexpected failure's detail: for operators, never for clients.
    func error(_ message: String, requestID: String?)
    /// Writes out anything buffered (called at shutdown).
    func flush()
}

extension ServerLog {
    public func flush() {}
}
