import Foundation

/// Where artifacts go in S3-compatible storage, as `HOSTED_ARTIFACT_STORE` names it:
/// `s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true]`. The endpoint is the
/// operator's configuration, never user input, so it may be any http(s) address (loopback too).
public struct S3Location: Equatable, Sendable, CustomStringConvertible {
    public let bucket: String
    /// Path segments joined by `/`, without a leading or trailing slash; empty for none.
    public let prefix: String
    /// `scheme://host[:port]`, without a path.
    public let endpoint: URL
    public let region: String
    /// `https://endpoint/bucket/key` when true, else `https://bucket.endpoint/key`.
    public let pathStyle: Bool

    public init?(_ text: String) {
        guard text.hasPrefix("s3://"), let components = URLComponents(string: text), components.scheme == "s3",
              let bucket = components.host, Self.isBucketName(bucket), components.user == nil, components.password == nil,
              components.port == nil, components.fragment == nil
        else { return nil }
        var endpointText: String?
        var region: String?
        var pathStyle = false
        for item in components.queryItems ?? [] {
            switch item.name {
            case "endpoint": endpointText = item.value
            case "region": region = item.value
            case "path_style":
                switch item.value {
                case "true", "1": pathStyle = true
                case "false", "0": pathStyle = false
                default: return nil
                }
            default: return nil
            }
        }
        guard let endpointText, let endpoint = URL(string: endpointText.hasSuffix("/") ? String(endpointText.dropLast()) : endpointText),
              let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = endpoint.host, !host.isEmpty,
              endpoint.path.isEmpty, endpoint.query == nil, endpoint.user == nil, endpoint.fragment == nil,
              let region, !region.isEmpty, region.utf8.count <= 64,
              region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        let segments = components.path.split(separator: "/").map(String.init)
        guard segments.allSatisfy(Self.isKeySegment) else { return nil }
        self.bucket = bucket
        self.prefix = segments.joined(separator: "/")
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
    }

    /// The configuration's text again (it holds no secret).
    public var description: String {
        "s3://\(bucket)\(prefix.isEmpty ? "" : "/" + prefix)?endpoint=\(endpoint.absoluteString)&region=\(region)"
            + (pathStyle ? "&path_style=true" : "")
    }

    /// The URL of `key` (segments of `isKeySegment` characters), or of the bucket for `""`.
    func url(for key: String) -> String {
        let scheme = endpoint.scheme!.lowercased()
        let authority = endpoint.absoluteString.dropFirst(scheme.count + 3)
        return pathStyle ? "\(scheme)://\(authority)/\(bucket)/\(key)" : "\(scheme)://\(bucket).\(authority)/\(key)"
    }

    /// DNS-compatible bucket names (3…63 lowercase letters, digits, `-` and `.`), which both URL styles take.
    static func isBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count) && name.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x2e }
            && name.first != "-" && name.first != "."
    }

    /// Key segments are ASCII letters, digits, `-`, `_` and `.` (no `..`): nothing needs
    /// percent-encoding, so the path curl signs is the path the server sees.
    static func isKeySegment(_ segment: String) -> Bool {
        !segment.isEmpty && segment != "." && segment != ".." && segment.utf8.count <= 200
            && segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
    }
}

/// The access key pair the store is signed with. `description` never shows the secret.
public struct S3Credentials: Sendable, CustomStringConvertible {
    /// May contain `:` (OpenStack Swift's `account:user`): it goes to curl as a user name of its
    /// own (`CURLOPT_USERNAME`), never as `user:password`, which curl would split at the first colon.
    public let accessKeyID: String
    public let secretAccessKey: String

    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "S3Credentials(\(accessKeyID), secret hidden)" }
}
