import Foundation
import HostedCore
import HostedCrypto
import HostedOutbound
import HostedStorage

/// What the command line needs of the artifact store without building the whole service:
/// the object-store backend for a location, with the configuration's secret key and credentials.
public enum ArtifactStoreSetup {
    /// The backend that writes to `location` (`hosted artifacts migrate --to`); `Configuration.Invalid`
    /// when the secret key or the S3 credentials are missing.
    public static func objectBackend(to location: S3Location, configuration: Configuration, database: any Database,
                                     random: any RandomSource = SecureRandom(),
                                     report: @escaping @Sendable (String) -> Void) throws -> ObjectArtifactBackend {
        var target = configuration
        target.artifactStore = .s3(location)
        try target.checkArtifactStore()
        let secretKey = try SecretKey.load(configuration, random: random)
        let client = S3Client(location: location, credentials: S3Credentials(accessKeyID: target.s3AccessKeyID ?? "",
                                                                             secretAccessKey: target.s3SecretAccessKey ?? ""))
        return ObjectArtifactBackend(database: database, objects: client, keys: DataKeyStore(secretKey: secretKey.bytes(), random: random),
                                     report: report)
    }
}
