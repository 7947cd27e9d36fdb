import Foundation

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
