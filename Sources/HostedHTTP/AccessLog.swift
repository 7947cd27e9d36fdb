import Foundation
import HostedCore

/// One finished request, as written to the access log.
public struct AccessLogEntry: Sendable {
    public let time: Date
    public let requestID: String
    public let method: String
    /// The path without the query string (queries may carry identifiers that do not belong in logs),
    /// and with `{name}` in place of a parameter its route masks (`Router.Builder.add(maskedInLog:)`).
    public let path: String
    public let status: Int
    public let bytes: Int
    public let durationMilliseconds: Double

    /// The entry as one JSON object (no trailing newline).
    public var jsonLine: String {
        var bytes: [UInt8] = []
        appendJSONLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the JSON object's bytes, built by hand: this runs for every request, and a
    /// general-purpose encoder (or String concatenation) costs more than the rest of a small request.
    public func appendJSONLine(to line: inout [UInt8]) {
        Self.literal(#"{"time":""#, to: &line)
        RFC3339.append(time, milliseconds: true, to: &line)
        Self.literal(#"","request_id":"#, to: &line)
        JSONText.appendString(requestID, to: &line)
        Self.literal(#","method":"#, to: &line)
        JSONText.appendString(method, to: &line)
        Self.literal(#","path":"#, to: &line)
        JSONText.appendString(path, to: &line)
        Self.literal(#","status":"#, to: &line)
        JSONText.appendInt(status, to: &line)
        Self.literal(#","bytes":"#, to: &line)
        JSONText.appendInt(bytes, to: &line)
        Self.literal(#","duration_ms":"#, to: &line)
        let micros = Int((durationMilliseconds * 1000).rounded())
        JSONText.appendInt(micros / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        if fraction < 100 { line.append(UInt8(ascii: "0")) }
        if fraction < 10 { line.append(UInt8(ascii: "0")) }
        JSONText.appendInt(fraction, to: &line)
        line.append(UInt8(ascii: "}"))
    }

    /// A literal's bytes copied as one block (through `String.UTF8View` it is a generic loop).
    @inline(__always)
    private static func literal(_ text: StaticString, to line: inout [UInt8]) {
        text.withUTF8Buffer { line.append(contentsOf: $0) }
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
