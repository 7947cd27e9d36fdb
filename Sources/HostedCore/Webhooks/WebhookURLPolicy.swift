import Foundation

/// The rules for a webhook URL before any address is looked at: absolute, at most 2048
/// visible ASCII characters, no user information and no fragment, `https` (or `http` in dev
/// mode, which the address check then allows only to loopback). The host's addresses are
/// checked by `AddressPolicy` where the name is resolved.
public struct WebhookURLPolicy: Sendable {
    public let devMode: Bool
    public static let maximumLength = 2048

    public init(devMode: Bool) {
        self.devMode = devMode
    }

    /// A URL that passed the rules, taken apart for resolving and connecting.
    public struct Target: Equatable, Sendable {
        public let url: String
        public let scheme: String
        /// Lower-cased; an IPv6 literal without its brackets.
        public let host: String
        public let port: Int
    }

    public func validate(_ text: String, field: String = "url") throws(DomainError) -> Target {
        func fail(_ message: String) -> DomainError {
            .invalidRequest(detail: "The webhook URL \(message).", errors: [FieldError(field: field, message: message)],
                            code: .webhookURLNotAllowed)
        }
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw fail("must be 1 to \(Self.maximumLength) characters")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x5C }) else {
            throw fail("must not contain spaces, control characters, backslashes or non-ASCII characters")
        }
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") { scheme = "https" }
        else if lowered.hasPrefix("http://") {
            guard devMode else { throw fail("must use https") }
            scheme = "http"
        } else {
            throw fail(devMode ? "must use https (or http to a loopback address in dev mode)" : "must use https")
        }
        guard !text.contains("#") else { throw fail("must not contain a fragment") }
        let rest = text.dropFirst(scheme.count + 3)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw fail("must not contain a user name or password") }
        guard let (host, port) = ReturnURLPolicy.hostAndPort(authority) else {
            throw fail("must have a plain host name and an optional port")
        }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return Target(url: text, scheme: scheme, host: bare, port: port ?? (scheme == "https" ? 443 : 80))
    }
}
