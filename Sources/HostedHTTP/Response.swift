import Foundation

/// An HTTP response: status, headers and a fully built body.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already-encoded bytes.
    public static func json(bytes body: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }

    /// A JSON response encoding `value` with sorted keys (stable bytes, so stable ETags).
    public static func json(_ value: some Encodable, status: Int = 200) throws -> Response {
        json(bytes: Array(try JSONCoding.encoder.encode(value)), status: status)
    }
}
