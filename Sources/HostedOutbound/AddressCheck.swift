import HostedCore

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
