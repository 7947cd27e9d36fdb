import Foundation
import HostedCore

/// Writes one JSON object per line to standard error. Access lines are buffered (flushed at 16 KiB,
/// every 200 ms, at shutdown and before any error line) so a busy server does not pay one write(2)
/// per request; whole lines only, so lines from several worker threads never interleave.
///
/// `@unchecked Sendable`: `buffer` is only touched while holding `lock`.
public final class StandardErrorLog: ServerLog, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private let flushThreshold = 16 << 10
    private let timer: DispatchSourceTimer

    public init() {
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(200), repeating: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit {
        timer.cancel()
        flush()
    }

    public func access(_ entry: AccessLogEntry) {
        // Formatted before taking the lock, so worker threads do not queue behind each other.
        var line: [UInt8] = []
        line.reserveCapacity(192)
        entry.appendJSONLine(to: &line)
        line.append(0x0A)
        lock.lock()
        buffer.append(contentsOf: line)
        let due = buffer.count >= flushThreshold
        lock.unlock()
        if due { flush() }
    }

    public func error(_ message: String, requestID: String?) {
        var line = #"{"time":""# + RFC3339.format(Date(), milliseconds: true) + #"","level":"error","request_id":"#
        if let requestID { JSONText.appendString(requestID, to: &line) } else { line += "null" }
        line += #","message":"#
        JSONText.appendString(message, to: &line)
        line += "}"
        append(line, flushNow: true)
    }

    private func append(_ line: String, flushNow: Bool) {
        lock.lock()
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        let due = flushNow || buffer.count >= flushThreshold
        lock.unlock()
        if due { flush() }
    }

    public func flush() {
        lock.lock()
        defer { lock.unlock() }
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    break  // stderr is gone; dropping the log beats blocking requests on it
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
