import Foundation
import HostedCore
import HostedObservability
import HostedOutbound
import HostedStorage

/// The artifact store the configuration names: the database, or an S3 bucket through libcurl.
extension Foundations {
    /// The object-store backend for `HOSTED_ARTIFACT_STORE=s3://…`, nil for `database`. Never
    /// falls back to the database: missing credentials are refused before this
    /// (`checkArtifactStore`), and a store that is down or refuses them answers 503.
    static func artifactObjects(_ configuration: Configuration, database: any Database, keys: DataKeyStore,
                                log: any ServerLog) -> ObjectArtifactBackend? {
        guard case .s3(let location) = configuration.artifactStore else { return nil }
        let client = S3Client(location: location, credentials: S3Credentials(accessKeyID: configuration.s3AccessKeyID ?? "",
                                                                             secretAccessKey: configuration.s3SecretAccessKey ?? ""))
        return ObjectArtifactBackend(database: database, objects: client, keys: keys,
                                     cacheBytes: configuration.keeps(.objects) ? 64 << 20 : 0, report: { log.error($0, requestID: nil) })
    }

    /// The sweeper's pass over the object store (orphans past their grace, queued deletions), if one is configured.
    func artifactSweep() -> (@Sendable (Date) throws -> Void)? {
        guard let objects = artifacts.objects else { return nil }
        let queue = ArtifactObjectQueue(database: database, objects: objects.objects, orphanGrace: configuration.orphanGraceSeconds)
        return { now in
            while try queue.sweep(at: now).deleted == 100 {}
        }
    }
}
