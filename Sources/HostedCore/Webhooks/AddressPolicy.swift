/// Which network addresses a webhook may be sent to. Only public unicast addresses are; the
/// rest — private, loopback, link-local, shared, multicast, reserved, cloud metadata — are
/// refused (loopback is allowed in dev mode, for a receiver on the developer's machine).
/// Addresses come as their 4 or 16 network-order bytes; IPv6 forms that carry an IPv4
/// address (mapped, NAT64, 6to4) are judged by the IPv4 address inside.
public enum AddressPolicy {
    public enum Verdict: String, Equatable, Sendable {
        case `public`
        case loopback
        case `private`
        case linkLocal = "link-local"
        case metadata
        case multicast
        case reserved
    }

    public static func classify(_ bytes: [UInt8]) -> Verdict {
        switch bytes.count {
        case 4: return classifyIPv4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: return classifyIPv6(bytes)
        default: return .reserved
        }
    }

    /// Whether a delivery may connect to an address of this verdict.
    public static func allows(_ verdict: Verdict, devMode: Bool) -> Bool {
        verdict == .public || (devMode && verdict == .loopback)
    }

    static func classifyIPv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Verdict {
        switch (a, b) {
        case (169, 254) where c == 169 && d == 254: return .metadata     // AWS, GCP, Azure, …
        case (100, 100) where c == 100 && d == 200: return .metadata     // Alibaba Cloud
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168): return .private
        case (100, 64...127): return .private                           // shared address space (CGNAT)
        case (169, 254): return .linkLocal
        case (224...239, _): return .multicast
        case (0, _), (240...255, _): return .reserved                   // "this network", reserved, broadcast
        case (192, 0) where c == 0 || c == 2: return .reserved           // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return .reserved                           // benchmarking
        case (198, 51) where c == 100, (203, 0) where c == 113: return .reserved  // TEST-NET-2, -3
        case (192, 88) where c == 99: return .reserved                   // 6to4 relay anycast
        default: return .public
        }
    }

    static func classifyIPv6(_ bytes: [UInt8]) -> Verdict {
        let first10Zero = bytes[0..<10].allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated)
        if first10Zero && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return classifyIPv4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            return bytes[15] == 1 ? .loopback : .reserved               // ::1, ::
        }
        if first10Zero && bytes[10] == 0 && bytes[11] == 0 {
            return classifyIPv4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // 64:ff9b::/96 (NAT64) carries an IPv4 address in its last four bytes.
        if bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xFF && bytes[3] == 0x9B && bytes[4..<12].allSatisfy({ $0 == 0 }) {
            return classifyIPv4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // 2002::/16 (6to4) carries one in bytes 2…5.
        if bytes[0] == 0x20 && bytes[1] == 0x02 {
            return classifyIPv4(bytes[2], bytes[3], bytes[4], bytes[5])
        }
        // fd00:ec2::254, the AWS metadata service over IPv6
        if bytes[0] == 0xFD && bytes[1] == 0x00 && bytes[2] == 0x0E && bytes[3] == 0xC2
            && bytes[4..<14].allSatisfy({ $0 == 0 }) && bytes[14] == 0x02 && bytes[15] == 0x54 {
            return .metadata
        }
        switch bytes[0] {
        case 0xFC, 0xFD: return .private                                // unique local fc00::/7
        case 0xFE where bytes[1] & 0xC0 == 0x80: return .linkLocal      // fe80::/10
        case 0xFE where bytes[1] & 0xC0 == 0xC0: return .private        // site-local fec0::/10 (deprecated)
        case 0xFF: return .multicast
        default: break
        }
        // 2001:db8::/32 documentation, 100::/64 discard, 2001::/23 IETF assignments (Teredo …)
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return .reserved }
        if bytes[0] == 0x01 && bytes[1] == 0x00 && bytes[2..<8].allSatisfy({ $0 == 0 }) { return .reserved }
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] < 0x02 { return .reserved }
        // Global unicast is 2000::/3; the rest is unassigned.
        return bytes[0] & 0xE0 == 0x20 ? .public : .reserved
    }
}
