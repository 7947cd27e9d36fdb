import Foundation

/// Serves files from one directory with content types, a validator `ETag` and `Cache-Control`,
/// and no way out of the directory: each path segment is decoded on its own and refused when it
/// is empty, `.`/`..`, hidden, or holds a slash, backslash or NUL; symlinks are resolved and the
/// result must still lie inside the root. Text files of `minimumGzipSize` bytes or more go out
/// gzipped to a client that accepts it (`Vary: Accept-Encoding`, an `ETag` of their own).
public struct StaticFiles: Sendable {
    public let root: URL
    private let resolvedRoot: String
    private let gzipCache: GzipCache
    /// Sent with every file: revalidate each time (files have no content hash in their names).
    public static let cacheControl = "no-cache"
    /// Below this, gzip's 18 bytes of framing and the work are not worth it (the whole file fits
    /// in one TCP segment anyway).
    public static let minimumGzipSize = 1024
    /// Text, worth compressing; images and fonts are compressed already.
    static let compressibleExtensions: Set<String> = ["html", "css", "js", "mjs", "json", "yaml", "txt", "svg", "webmanifest"]

    /// `keepsGzipCopies: false` compresses on every request (to measure what the copies buy).
    public init(root: URL, keepsGzipCopies: Bool = true) {
        self.root = root
        self.gzipCache = GzipCache(keeps: keepsGzipCopies)
        self.resolvedRoot = root.resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// Types by extension; anything else is served as bytes.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json", "yaml": "application/yaml; charset=utf-8",
        "txt": "text/plain; charset=utf-8", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "ico": "image/x-icon", "webp": "image/webp",
        "woff2": "font/woff2", "webmanifest": "application/manifest+json",
    ]

    /// The file for raw (still percent-encoded) path segments below the root, or nil.
    public func resolve(rawSegments: [Substring]) -> URL? {
        guard !rawSegments.isEmpty else { return nil }
        var url = root
        for raw in rawSegments {
            guard let segment = String(raw).removingPercentEncoding, Self.isSafe(segment) else { return nil }
            url.appendPathComponent(segment)
        }
        let resolved = url.resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved.hasPrefix(resolvedRoot + "/") else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return URL(fileURLWithPath: resolved)
    }

    static func isSafe(_ segment: String) -> Bool {
        !segment.isEmpty && !segment.hasPrefix(".")
            && !segment.contains("/") && !segment.contains("\\") && !segment.contains("\0")
    }

    /// Answers a GET for the file at `rawPath` (the part of the URL path below the mount point).
    public func response(rawPath: Substring, request: Request) throws -> Response {
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        guard let file = resolve(rawSegments: segments) else { throw Problem.notFound() }
        return try response(for: file, request: request)
    }

    /// Answers with one known file, honouring `If-None-Match`.
    public func response(for file: URL, request: Request, extraHeaders: [(String, String)] = []) throws -> Response {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              let size = attributes[.size] as? Int,
              let modified = attributes[.modificationDate] as? Date,
              let body = FileManager.default.contents(atPath: file.path)
        else { throw Problem.notFound() }
        let validator = "\(String(size, radix: 16))-\(String(Int64(modified.timeIntervalSince1970 * 1000), radix: 16))"
        let fileExtension = file.pathExtension.lowercased()
        var payload = Array(body)
        var etag = "\"\(validator)\""
        var encoding: String?
        // Whether this file can go out in two forms: then every answer for it says so (Vary),
        // compressed or not, and each form has its own ETag.
        let compressible = Self.compressibleExtensions.contains(fileExtension) && payload.count >= Self.minimumGzipSize
        if compressible, Gzip.isAccepted(by: request.headers["Accept-Encoding"]),
           let gzipped = gzipCache.gzipped(payload, path: file.path, etag: etag) {
            payload = gzipped
            etag = "\"\(validator)-gzip\""
            encoding = "gzip"
        }
        var headers = HTTPHeaders([
            ("Content-Type", Self.contentTypes[fileExtension] ?? "application/octet-stream"),
            ("ETag", etag), ("Cache-Control", Self.cacheControl), ("X-Content-Type-Options", "nosniff"),
        ])
        if compressible { headers.set("Vary", "Accept-Encoding") }
        for (name, value) in extraHeaders { headers.set(name, value) }
        if let match = request.headers["If-None-Match"], match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
        }) {
            return Response(status: 304, headers: headers)
        }
        if let encoding { headers.set("Content-Encoding", encoding) }
        return Response(status: 200, headers: headers, body: payload)
    }
}
