import Foundation

/// Values collected from many threads at once.
public final class Collected<Value: Sendable>: @unchecked Sendable {  // `values` only under `lock`
    private let lock = NSLock()
    private var values: [Value] = []

    public init() {}

    public func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    public var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
