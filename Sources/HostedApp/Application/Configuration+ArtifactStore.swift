import Foundation
import HostedOutbound

/// Where artifact bytes go (`HOSTED_ARTIFACT_STORE`, docs/artifacts.md).
public enum ArtifactStoreSetting: Equatable, Sendable {
    /// In the database row, as before issue 41 (the default).
    case database
    /// In S3-compatible object storage, sealed with each verification's data key.
    case s3(S3Location)
}

extension Configuration {
    /// The settings of the artifact store: `HOSTED_ARTIFACT_STORE`, `HOSTED_S3_ACCESS_KEY_ID`,
    /// `HOSTED_S3_SECRET_ACCESS_KEY` (each also as `…_FILE`, a file holding the value) and
    /// `HOSTED_ORPHAN_GRACE_SECONDS`. False when `name` is none of them.
    mutating func applyArtifactStoreSetting(_ name: String, value: String) throws(Invalid) -> Bool {
        switch name {
        case "HOSTED_ARTIFACT_STORE":
            if value == "database" {
                artifactStore = .database
            } else if let location = S3Location(value) {
                artifactStore = .s3(location)
            } else {
                throw Invalid(description: "\(name) must be database or s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION[&path_style=true]")
            }
        case "HOSTED_S3_ACCESS_KEY_ID", "HOSTED_S3_ACCESS_KEY_ID_FILE":
            let key = name.hasSuffix("_FILE") ? try Self.secretFile(name, value) : value
            guard !key.isEmpty, key.utf8.count <= 256 else { throw Invalid(description: "\(name) must give 1…256 characters") }
            s3AccessKeyID = key
        case "HOSTED_S3_SECRET_ACCESS_KEY", "HOSTED_S3_SECRET_ACCESS_KEY_FILE":
            let secret = name.hasSuffix("_FILE") ? try Self.secretFile(name, value) : value
            guard !secret.isEmpty, secret.utf8.count <= 1024 else { throw Invalid(description: "\(name) must give 1…1024 characters") }
            s3SecretAccessKey = secret
        case "HOSTED_ORPHAN_GRACE_SECONDS":
            guard let seconds = Int(value), (60...30 * 86_400).contains(seconds) else {
                throw Invalid(description: "\(name) must be 60…2592000 seconds")
            }
            orphanGraceSeconds = TimeInterval(seconds)
        default:
            return false
        }
        return true
    }

    /// The object store's credentials, when `artifactStore` is one; refused at `serve` (and by
    /// `artifacts migrate`) when either is missing.
    func checkArtifactStore() throws(Invalid) {
        guard case .s3 = artifactStore else { return }
        guard s3AccessKeyID != nil, s3SecretAccessKey != nil else {
            throw Invalid(description: "HOSTED_ARTIFACT_STORE=s3://… needs HOSTED_S3_ACCESS_KEY_ID and HOSTED_S3_SECRET_ACCESS_KEY "
                          + "(or their _FILE variants)")
        }
    }

    /// The first line of a file holding a credential (trailing newline and spaces dropped).
    static func secretFile(_ name: String, _ path: String) throws(Invalid) -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw Invalid(description: "\(name): cannot read \(path)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
