/// The proxies whose `X-Forwarded-For` is believed (`HOSTED_TRUSTED_PROXIES`), and the client
/// address that follows from them — what per-address limits count.
public struct TrustedProxies: Sendable {
    public let addresses: Set<String>

    public init(_ addresses: some Sequence<String>) {
        self.addresses = Set(addresses)
    }

    /// The client's address: the peer, or — only when the peer is a trusted proxy — the nearest
    /// untrusted address in `X-Forwarded-For`. Repeated header lines are one list (RFC 9110 §5.3),
    /// read from the right: a proxy appends, so only the right-most hops are the proxies' own.
    public func clientAddress(of request: Request) -> String {
        guard addresses.contains(request.peerAddress) else { return request.peerAddress }
        let hops = Array(request.headers.all("X-Forwarded-For").joined(separator: ",").utf8)
            .split(separator: UInt8(ascii: ","))  // bytes, not Characters (see Request.cookie)
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !addresses.contains($0) } ?? request.peerAddress
    }
}
