import HostedCore

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
