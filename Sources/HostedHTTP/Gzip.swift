import CZlib
import HostedCore

/// gzip (RFC 1952) through zlib: the static files' compressed copies.
enum Gzip {
    /// `bytes` as one gzip member at zlib's best compression; nil if zlib fails.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let bound = hosted_gzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                hosted_gzip(input.baseAddress, input.count, out.baseAddress, out.count, 9)
            }
        }
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Whether an `Accept-Encoding` value (RFC 9110 §12.5.3) lets gzip be sent: `gzip` (or
    /// `x-gzip`) listed with a weight above 0, or else `*` with one. A weight that does not parse
    /// counts as 0: the file then goes out as it is, which every client accepts.
    static func isAccepted(by acceptEncoding: String?) -> Bool {
        guard let acceptEncoding else { return false }
        var named: Bool?
        var wildcard: Bool?
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first.map({ String($0).trimmedASCIIWhitespace.lowercased() }), !coding.isEmpty else { continue }
            var acceptable = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, String(pair[0]).trimmedASCIIWhitespace.lowercased() == "q" else { continue }
                acceptable = (Double(String(pair[1]).trimmedASCIIWhitespace) ?? 0) > 0
            }
            switch coding {
            case "gzip", "x-gzip": named = (named ?? false) || acceptable
            case "*": wildcard = acceptable
            default: break
            }
        }
        return named ?? wildcard ?? false
    }
}
