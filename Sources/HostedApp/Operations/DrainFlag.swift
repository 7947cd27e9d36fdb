import HostedCore
import Foundation
import HostedHTTP
import HostedStorage

/// A flag set once, read from any thread.
///
/// `@unchecked Sendable`: `value` is only touched while holding `lock`.
final class DrainFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
