import CZlib
import HostedCore
import Synchronization

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

/// Gzipped copies of served files, made on a file's first request and kept while its validator
/// holds (a changed file is compressed again). One entry per file of the served directory, so
/// memory is bounded by that directory's text files, compressed. Built with `keeps: false`, it
/// keeps nothing and compresses on every call.
final class GzipCache: Sendable {
    /// By file path: the validator the copy was made for, and the copy (nil: gzip did not shrink it).
    private let copies = Guarded<[String: (etag: String, gzipped: [UInt8]?)]>([:])
    private let keeps: Bool

    init(keeps: Bool = true) {
        self.keeps = keeps
    }

    /// The gzipped copy of `body` (the file at `path` with validator `etag`), or nil when gzip
    /// does not make it smaller.
    func gzipped(_ body: [UInt8], path: String, etag: String) -> [UInt8]? {
        if keeps, let kept = copies.withLock({ $0[path] }), kept.etag == etag { return kept.gzipped }
        let compressed = Gzip.compress(body).flatMap { $0.count < body.count ? $0 : nil }
        guard keeps else { return compressed }
        copies.withLock { $0[path] = (etag, compressed) }
        return compressed
    }
}
