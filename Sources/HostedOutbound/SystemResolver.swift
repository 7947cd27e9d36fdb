import Glibc

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
