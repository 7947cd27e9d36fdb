import Foundation
import Glibc
import HostedCore

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

/// The system's resolver (getaddrinfo: /etc/hosts, then DNS).
public struct SystemResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) -> [[UInt8]]? {
        if let literal = literalAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var found: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var bytes = pointer.pointee.sin_addr
                        found.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var bytes = pointer.pointee.sin6_addr
                        found.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        var unique: [[UInt8]] = []
        for address in found where !unique.contains(address) { unique.append(address) }
        return unique.isEmpty ? nil : unique
    }
}

/// Names from a hosts(5)-style file only (`ADDRESS NAME…` per line, `#` comments), re-read at
/// every lookup, and never DNS: for tests in dev mode, which decide what a name resolves to
/// (and change it) without any traffic leaving the machine.
public struct HostsFileResolver: HostResolver {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func addresses(of host: String) -> [[UInt8]]? {
        if let literal = literalAddress(host) { return [literal] }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var found: [[UInt8]] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields.dropFirst().contains(where: { $0.lowercased() == host }),
                  let address = literalAddress(String(fields[0])), !found.contains(address)
            else { continue }
            found.append(address)
        }
        return found.isEmpty ? nil : found
    }
}

/// The address a delivery connects to, once every address of the host passed the policy.
public enum AddressCheck: Equatable, Sendable {
    case allowed([UInt8])
    /// The host does not resolve.
    case unresolvable
    /// One of its addresses is refused (a name that mixes public and private addresses is
    /// refused as a whole).
    case refused(AddressPolicy.Verdict)

    /// Resolves `host` with `resolver` and judges every address; prefers IPv4 among allowed ones.
    public static func check(host: String, resolver: any HostResolver, devMode: Bool) -> AddressCheck {
        guard let addresses = resolver.addresses(of: host) else { return .unresolvable }
        for address in addresses {
            let verdict = AddressPolicy.classify(address)
            if !AddressPolicy.allows(verdict, devMode: devMode) { return .refused(verdict) }
        }
        return .allowed(addresses.first(where: { $0.count == 4 }) ?? addresses[0])
    }
}

/// The text form of an address (for libcurl's `CURLOPT_RESOLVE` and for logs).
func addressText(_ bytes: [UInt8]) -> String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let ok = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
    return ok ? String(cString: buffer) : "?"
}
