import Foundation
import HostedObservability

/// libmicrohttpd's own messages on their way to the log: at most one line a second, the next
/// one saying how many were dropped meanwhile, so clients that make the library complain (cut
/// slow connections, malformed heads) cannot fill the disk with its complaints.
///
/// `@unchecked Sendable`: `lastWritten` and `dropped` are only touched while holding `lock`.
final class LibraryMessages: @unchecked Sendable {
    private let lock = NSLock()
    private var lastWritten: UInt64?
    private var dropped = 0
    private let interval: UInt64

    init(intervalNanoseconds: UInt64 = 1_000_000_000) {
        interval = intervalNanoseconds
    }

    /// Writes `message` (trimmed, as an error line without a request id) unless one was written
    /// less than a second ago; then it is only counted.
    func note(_ message: String, log: any ServerLog, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        lock.lock()
        if let lastWritten, now &- lastWritten < interval {
            dropped += 1
            lock.unlock()
            return
        }
        lastWritten = now
        let before = dropped
        dropped = 0
        lock.unlock()
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        log.error("libmicrohttpd: \(text)" + (before > 0 ? " (\(before) more messages in the last second not written)" : ""),
                  requestID: nil)
    }
}
