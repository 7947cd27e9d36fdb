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

    /// The value of the first cookie named `name` in the `Cookie` headers. Split on the byte `;`,
    /// never on Characters (a combining or prepended mark would otherwise join two cookies).
    public func cookie(_ name: String) -> String? {
        let prefix = Array((name + "=").utf8)
        for header in headers where header.name.caseInsensitiveEquals("Cookie") {
            for pair in Array(header.value.utf8).split(separator: UInt8(ascii: ";")) {
                let trimmed = pair.drop { $0 == 0x20 || $0 == 0x09 }
                if trimmed.starts(with: prefix) {
                    let value = trimmed.dropFirst(prefix.count)
                    let end = value.lastIndex { $0 != 0x20 && $0 != 0x09 }.map { $0 + 1 } ?? value.startIndex
                    return String(decoding: value[value.startIndex..<end], as: UTF8.self)
                }
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
