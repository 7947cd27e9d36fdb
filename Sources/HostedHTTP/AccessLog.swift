import Foundation

/// One finished request, as written to the access log.
public struct AccessLogEntry: Sendable, Encodable {
    public let time: String
    public let requestID: String
    public let method: String
    public let path: String
    public let status: Int
    public let bytes: Int
    public let durationMilliseconds: Double

    enum CodingKeys: String, CodingKey {
        case time, method, path, status, bytes
        case requestID = "request_id"
        case durationMilliseconds = "duration_ms"
    }
}

/// Where the server reports finished requests and its own errors.
public protocol ServerLog: Sendable {
    func access(_ entry: AccessLogEntry)
    /// An unexpected failure's detail: for operators, never for clients.
    func error(_ message: String, requestID: String?)
}

/// Writes one JSON object per line to standard error.
public struct StandardErrorLog: ServerLog {
    public init() {}

    public func access(_ entry: AccessLogEntry) {
        guard let data = try? JSONCoding.encoder.encode(entry) else { return }
        write(data)
    }

    public func error(_ message: String, requestID: String?) {
        struct Line: Encodable {
            let time: String
            let level = "error"
            let request_id: String?
            let message: String
        }
        guard let data = try? JSONCoding.encoder.encode(Line(time: Self.timestamp(), request_id: requestID, message: message))
        else { return }
        write(data)
    }

    private func write(_ data: Data) {
        // One write(2) per line, so lines from several worker threads never interleave.
        FileHandle.standardError.write(data + Data([0x0A]))
    }

    public static func timestamp(_ date: Date = Date()) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
