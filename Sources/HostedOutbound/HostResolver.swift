import Glibc

/// Turns a host into the addresses a delivery may connect to (4 or 16 network-order bytes each).
public protocol HostResolver: Sendable {
    /// nil when the name does not resolve.
    func addresses(of host: String) -> [[UInt8]]?
}

/// An IP literal's bytes, or nil when `host` is a name.
func literalAddress(_ host: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}

/// The text form of an address (for libcurl's `CURLOPT_RESOLVE` and for logs).
func addressText(_ bytes: [UInt8]) -> String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
    return ok ? String(cString: buffer) : "?"
}
