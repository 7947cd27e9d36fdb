import Foundation
import HostedCore

/// One finished request, as written to the access log.
public struct AccessLogEntry: Sendable {
    public let time: Date
    public let requestID: String
    public let method: String
    /// The path without the query string (queries may carry identifiers that do not belong in logs).
    public let path: String
    public let status: Int
    public let bytes: Int
    public let durationMilliseconds: Double

    /// The entry as one JSON object (no trailing newline), built by hand: this runs for every
    /// request, and a general-purpose encoder costs more than the rest of a small request.
    public var jsonLine: String {
        var line = #"{"time":""#
        line += RFC3339.format(time, milliseconds: true)
        line += #"","request_id":"#
        JSONText.appendString(requestID, to: &line)
        line += #","method":"#
        JSONText.appendString(method, to: &line)
        line += #","path":"#
        JSONText.appendString(path, to: &line)
        line += #","status":\#(status),"bytes":\#(bytes),"duration_ms":"#
        let micros = Int64((durationMilliseconds * 1000).rounded())
        let fraction = String(micros % 1000)
        line += "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "}"
        return line
    }
}

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
        append(entry.jsonLine, flushNow: false)
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
