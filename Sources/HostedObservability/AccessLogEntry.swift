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

    public init(time: Date, requestID: String, method: String, path: String, status: Int, bytes: Int,
                durationMilliseconds: Double) {
        self.time = time
        self.requestID = requestID
        self.method = method
        self.path = path
        self.status = status
        self.bytes = bytes
        self.durationMilliseconds = durationMilliseconds
    }

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
