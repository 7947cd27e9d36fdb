import HostedCore

/// The framing rules every request must pass before anything else reads it (RFC 9112 §6.1,
/// §6.3, §3.2): a request a proxy in front could read differently from us — and so smuggle a
/// second request past it — is refused with 400 and its connection closed.
public enum RequestFraming {
    /// Most header fields in one request (browsers send about 20).
    public static let maximumFields = 100

    /// Why the request must be refused, or nil when its framing is unambiguous. `hidesBytes`:
    /// a header value held a NUL with more after it, which a C string silently cuts short
    /// (`Bearer <key>\0…` must not authenticate as `Bearer <key>`). `malformedLine`: the request
    /// line held a NUL (`GET /healthz\0/x` must not read as `/healthz`), or its target a space or
    /// a control character (RFC 9112 §3.2).
    public static func violation(version: String, fields: [(name: String, value: String)], hidesBytes: Bool = false,
                                 malformedLine: Bool = false) -> String? {
        if malformedLine { return "The request line contains a NUL, or its target a space or a control character." }
        if hidesBytes { return "A header contains a NUL byte." }
        if fields.count > maximumFields { return "More than \(maximumFields) header fields." }
        var contentLengths: [String] = []
        var transferEncodings: [String] = []
        var hosts = 0
        for field in fields {
            guard !field.name.isEmpty, allBytes(of: field.name, satisfy: isTokenCharacter) else {
                return "A header name is not a valid token."
            }
            if !allBytes(of: field.value, satisfy: { $0 != 0 && $0 != 0x0D && $0 != 0x0A }) {
                return "A header value contains a NUL or line break."
            }
            if field.name.caseInsensitiveEquals("Content-Length") { contentLengths.append(field.value) }
            if field.name.caseInsensitiveEquals("Transfer-Encoding") { transferEncodings.append(field.value) }
            if field.name.caseInsensitiveEquals("Host") { hosts += 1 }
        }
        if !contentLengths.isEmpty {
            guard transferEncodings.isEmpty else {
                return "Content-Length and Transfer-Encoding together are ambiguous."
            }
            let first = contentLengths[0].trimmedASCIIWhitespace
            guard (1...18).contains(first.utf8.count), first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return "Content-Length is not a number."
            }
            guard contentLengths.allSatisfy({ $0.trimmedASCIIWhitespace == first }) else {
                return "Several different Content-Length values."
            }
        }
        if !transferEncodings.isEmpty {
            guard transferEncodings.count == 1, transferEncodings[0].trimmedASCIIWhitespace.caseInsensitiveEquals("chunked") else {
                return "Only Transfer-Encoding: chunked is accepted."
            }
        }
        if version == "HTTP/1.1" {
            guard hosts == 1 else { return "An HTTP/1.1 request needs exactly one Host header." }
        } else if version != "HTTP/1.0" {
            return "Only HTTP/1.0 and HTTP/1.1 are served."
        }
        return nil
    }

    /// RFC 9110 §5.6.2 `tchar`.
    /// Over the contiguous bytes (a native string's own): this runs for every header of every
    /// request.
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(test) }
    }

    static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
