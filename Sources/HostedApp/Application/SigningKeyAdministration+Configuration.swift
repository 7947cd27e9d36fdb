import HostedCore
import HostedCrypto
import HostedObservability
import HostedStorage

extension SigningKeyAdministration {
    /// The signing keys of the store a command opened, with the secret key read as `serve`
    /// reads it (a new key must be sealed under the same one).
    public init(configuration: Configuration, database: any Database, clock: any WallClock = SystemWallClock(),
                random: any RandomSource = SecureRandom()) throws {
        let secretKey = try SecretKey.load(configuration, random: random)
        self.init(signing: ResultSigning(store: SigningKeyStore(database: database),
                                         box: SecretBox.derive(from: secretKey.bytes(), label: ResultSigning.boxLabel),
                                         issuer: configuration.publicURL.absoluteString, clock: clock, random: random,
                                         log: StandardErrorLog()))
    }
}
