import Foundation

/// An HTTP request as the handlers see it: fully read, with a decoded query.
public struct Request: Sendable {
    public var method: String
    /// The path exactly as sent (still percent-encoded), without the query.
    public var path: String
    /// Query parameters, percent-decoded (`+` as space), in order.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The numeric address of the TCP peer (a proxy's, when behind one).
    public var peerAddress: String

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], peerAddress: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
    }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The value of the first cookie named `name` in the `Cookie` headers.
    public func cookie(_ name: String) -> String? {
        for header in headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    /// Decodes `application/x-www-form-urlencoded` style text: `+` is a space, `%XX` a byte.
    /// Returns nil when the escapes are not valid UTF-8.
    public static func formDecode(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
