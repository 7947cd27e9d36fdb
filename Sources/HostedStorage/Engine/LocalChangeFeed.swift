import Foundation

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
