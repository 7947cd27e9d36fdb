import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedStorage

/// The evidence bundle's factory and routes (issue 40).
extension Foundations {
    func makeEvidence(signer: EvidenceService.Signer?) -> EvidenceService {
        EvidenceService(verifications: verifications, events: events, artifacts: artifacts,
                        verificationJSON: APIObjects.VerificationJSON(publicURL: configuration.publicURL), signer: signer, clock: clock)
    }

    /// The API's download (with the key) and the console's (with an operator's session, from
    /// the console's origin).
    func registerEvidence(_ evidence: EvidenceService, console: ConsoleService, in routes: inout Router.Builder) {
        let evidenceRoutes = EvidenceRoutes(service: evidence)
        routes.group(apiKeys) { routes in evidenceRoutes.registerAPI(guards: guards, in: &routes) }
        routes.group(SameOrigin(publicURL: configuration.publicURL)) { routes in
            routes.group(ConsoleSessionAuthentication(console: console)) { routes in evidenceRoutes.registerConsole(in: &routes) }
        }
    }
}

extension EvidenceExport {
    /// The command line's export, on a store the command opened: the keys `serve` signs with,
    /// sealed under the same secret key (the first is made here when no server has made one yet).
    public init(configuration: Configuration, database: any Database, clock: any WallClock = SystemWallClock(),
                random: any RandomSource = SecureRandom()) throws {
        let events = EventStore(database: database, random: random)
        let secretKey = try SecretKey.load(configuration, random: random)
        let signing = ResultSigning(store: SigningKeyStore(database: database),
                                    box: SecretBox.derive(from: secretKey.bytes(), label: ResultSigning.boxLabel),
                                    issuer: configuration.publicURL.absoluteString, clock: clock, random: random, log: StandardErrorLog())
        try signing.ensureKey()
        let sealing = PersonalSealing(secretKey: secretKey.bytes(), random: random)
        self.init(service: EvidenceService(
            verifications: VerificationStore(database: database, changes: LocalChangeFeed(), sealing: sealing, events: events, clock: clock),
            events: events,
            artifacts: ArtifactStore(database: database, keys: sealing.keys,
                                     objects: Foundations.artifactObjects(configuration, database: database, keys: sealing.keys,
                                                                          log: StandardErrorLog())),
            verificationJSON: APIObjects.VerificationJSON(publicURL: configuration.publicURL),
            signer: signing.detachedSignature(over:), clock: clock))
    }
}
