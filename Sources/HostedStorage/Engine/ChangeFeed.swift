import Foundation

/// Tells waiting long-polls that an object changed. Publishing happens after the change commits.
/// On PostgreSQL it goes through `NOTIFY`, so every process sharing the database hears it; on
/// SQLite (a single-process store) it stays in the process.
public protocol ChangeFeed: Sendable {
    func publish(_ key: String)
    /// Calls `handler` with each published key (from any process, on PostgreSQL), on a
    /// background thread. `nil` means "anything may have changed" (after a reconnect).
    func subscribe(_ handler: @escaping @Sendable (String?) -> Void)
    /// Stops listening (releases a dedicated connection, if any).
    func stop()
}
