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

/// Subscribers of one process.
///
/// `@unchecked Sendable`: `handlers` is only touched while holding `lock`.
public final class LocalChangeFeed: ChangeFeed, @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [@Sendable (String?) -> Void] = []

    public init() {}

    public func publish(_ key: String) { deliver(key) }

    public func subscribe(_ handler: @escaping @Sendable (String?) -> Void) {
        lock.lock()
        handlers.append(handler)
        lock.unlock()
    }

    public func stop() {}

    func deliver(_ key: String?) {
        lock.lock()
        let current = handlers
        lock.unlock()
        for handler in current { handler(key) }
    }
}
