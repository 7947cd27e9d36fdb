/// The outcome a redirect adds to a registered return URL's query (`verification_id`, `status`),
/// appended to the URL's text as it is. A submit and every follow of a submitted journey build
/// one; parsing the URL into `URLComponents`, decoding its query into items and writing it all
/// back cost more than the rest of building the redirect (docs/performance.md, "Signed results").
public enum ReturnURLQuery {
    /// `url` with `name=value` added to its query for each item, after `?` when it has no query
    /// (or an empty one) and `&` otherwise. Names and values are percent-encoded: every byte but
    /// RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) becomes `%XX`.
    ///
    /// Nil when `url` is not one this writes exactly as `URLComponents` did before it (the caller
    /// then builds it that way): it must start with `http://` or `https://`, hold only RFC 3986's
    /// unreserved characters, sub-delimiters, `:`, `@`, `/` and `?` (so no fragment, no percent
    /// escape `URLComponents` would rewrite, nothing it would refuse, no IPv6 literal), and its
    /// query must be one `URLComponents` wrote back as it was (`isKeptAsItIs`).
    public static func appending(_ items: [(name: String, value: String)], to url: String) -> String? {
        let bytes = url.utf8
        guard bytes.starts(with: "https://".utf8) || bytes.starts(with: "http://".utf8),
              bytes.allSatisfy(isPlain)
        else { return nil }
        let query = bytes.firstIndex(of: UInt8(ascii: "?")).map { bytes[bytes.index(after: $0)...] }
        if let query, !query.isEmpty, !isKeptAsItIs(query) { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + items.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 } + 16)
        out.append(contentsOf: bytes)
        var separator: UInt8? = query == nil ? UInt8(ascii: "?") : (query!.isEmpty ? nil : UInt8(ascii: "&"))
        for item in items {
            if let separator { out.append(separator) }
            separator = UInt8(ascii: "&")
            appendEncoded(item.name, to: &out)
            out.append(UInt8(ascii: "="))
            appendEncoded(item.value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `URLComponents`' round trip through query items wrote `query` back unchanged:
    /// no empty pair (a leading or trailing `&`, `&&`) and at most one `=` in each pair (a
    /// second one came back as `%3D`).
    static func isKeptAsItIs(_ query: Substring.UTF8View) -> Bool {
        var pairLength = 0
        var equals = 0
        for byte in query {
            switch byte {
            case UInt8(ascii: "&"):
                guard pairLength > 0 else { return false }
                pairLength = 0
                equals = 0
            case UInt8(ascii: "="):
                equals += 1
                guard equals == 1 else { return false }
                pairLength += 1
            default:
                pairLength += 1
            }
        }
        return pairLength > 0
    }

    /// Appends `text` percent-encoded: unreserved characters as they are, every other byte of its
    /// UTF-8 as `%XX` (upper-case hex, RFC 3986 §2.1).
    public static func appendEncoded(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// RFC 3986 §2.3: `A–Z a–z 0–9 - . _ ~`.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// What a URL this function extends may hold: unreserved characters, sub-delimiters
    /// (`! $ & ' ( ) * + , ; =`), `:`, `@`, `/` and `?`.
    @inline(__always)
    static func isPlain(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"): true
        default: false
        }
    }
}
