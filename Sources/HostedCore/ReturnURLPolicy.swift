import Foundation

/// The rules for return URLs: absolute https with a host, no user-info, no fragment, at most
/// 2048 characters; `http` only for loopback hosts in dev mode; custom schemes refused. A URL
/// used on a verification or handoff must equal a registered one, comparing scheme and host
/// case-insensitively and ignoring a default port.
public struct ReturnURLPolicy: Sendable {
    public let devMode: Bool
    public static let maximumLength = 2048
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "localhost"]

    public init(devMode: Bool) {
        self.devMode = devMode
    }

    /// A return URL that passed the rules, with its comparison form.
    public struct Accepted: Equatable, Sendable {
        /// As the customer wrote it (what redirects use).
        public let url: String
        /// Lower-case scheme and host, default port dropped: what matching compares.
        public let canonical: String
    }

    /// Checks `text` against every rule; the error's `code` says which rule failed.
    public func validate(_ text: String, field: String = "url") throws(DomainError) -> Accepted {
        func fail(_ code: ProblemCode, _ message: String) -> DomainError {
            .invalidRequest(detail: "The return URL \(message).", errors: [FieldError(field: field, message: message)], code: code)
        }
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw fail(.returnURLInvalid, "must be 1 to \(Self.maximumLength) characters")
        }
        // Visible ASCII only: no whitespace, control characters, backslashes or raw Unicode that
        // browsers and parsers disagree about.
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x5C }) else {
            throw fail(.returnURLInvalid, "must not contain spaces, control characters, backslashes or non-ASCII characters")
        }
        guard let colon = text.firstIndex(of: ":"), let schemeEnd = Optional(text[..<colon]),
              !schemeEnd.isEmpty, schemeEnd.first!.isLetter,
              schemeEnd.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else {
            throw fail(.returnURLInvalid, "must be an absolute URL")
        }
        let scheme = schemeEnd.lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw fail(.returnURLSchemeNotAllowed, "must use https (register a universal link or app link instead of a custom scheme)")
        }
        let afterScheme = text[text.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else { throw fail(.returnURLInvalid, "must be an absolute URL with a host") }
        guard !text.contains("#") else { throw fail(.returnURLInvalid, "must not contain a fragment") }
        let rest = afterScheme.dropFirst(2)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        guard !authority.contains("@") else { throw fail(.returnURLInvalid, "must not contain user information") }
        guard let (host, port) = Self.hostAndPort(authority) else {
            throw fail(.returnURLInvalid, "must have a plain host name and an optional port")
        }
        if scheme == "http" {
            guard devMode, Self.loopbackHosts.contains(host) else {
                throw fail(.returnURLNotHTTPS, devMode ? "must use https (http is allowed only for loopback hosts)" : "must use https")
            }
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let portPart = port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        let canonical = "\(scheme)://\(host)\(portPart)\(tail)"
        return Accepted(url: text, canonical: canonical)
    }

    /// Splits `host[:port]` (or `[v6]:port`), lower-cases the host and checks its characters.
    static func hostAndPort(_ authority: Substring) -> (String, Int?)? {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
            guard isIPv6Literal(hostPart.dropFirst().dropLast()) else { return nil }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            }
            guard hostPart.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }),
                  !hostPart.hasPrefix("."), !hostPart.hasPrefix("-")
            else { return nil }
        }
        guard !hostPart.isEmpty else { return nil }
        var port: Int?
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value), portPart.allSatisfy(\.isNumber) else { return nil }
            port = value
        }
        return (hostPart.lowercased(), port)
    }

    /// RFC 4291 text form: eight groups of 1–4 hex digits, one `::` standing for at least one
    /// zero group, and optionally a dotted IPv4 address as the last two groups.
    static func isIPv6Literal(_ text: Substring) -> Bool {
        guard !text.isEmpty else { return false }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        func groups(_ part: String, allowIPv4Tail: Bool) -> Int? {
            guard !part.isEmpty else { return 0 }
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            var count = 0
            for (index, piece) in pieces.enumerated() {
                if allowIPv4Tail, index == pieces.count - 1, piece.contains(".") {
                    let octets = piece.split(separator: ".", omittingEmptySubsequences: false)
                    guard octets.count == 4, octets.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 })
                    else { return nil }
                    count += 2
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit) else { return nil }
                    count += 1
                }
            }
            return count
        }
        if halves.count == 1 { return groups(halves[0], allowIPv4Tail: true) == 8 }
        guard let head = groups(halves[0], allowIPv4Tail: false), let tail = groups(halves[1], allowIPv4Tail: true) else { return false }
        return head + tail <= 7
    }

    /// Checks a URL given on a verification or handoff: valid, and equal to a registered one.
    /// Returns the registered spelling, which is what redirects then use.
    public func requireRegistered(_ text: String, registered: [String], field: String = "return_url") throws(DomainError) -> Accepted {
        let accepted = try validate(text, field: field)
        guard let match = registered.first(where: { (try? validate($0).canonical) == accepted.canonical }) else {
            throw .invalidRequest(detail: "The return URL is not one of the account's registered return URLs.",
                                  errors: [FieldError(field: field, message: "must equal a registered return URL")],
                                  code: .returnURLNotRegistered)
        }
        return Accepted(url: match, canonical: accepted.canonical)
    }
}
