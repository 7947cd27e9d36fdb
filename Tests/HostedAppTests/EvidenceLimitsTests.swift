import Foundation
@testable import HostedApp
import HostedArchive
import HostedCore
import HostedCrypto
import HostedStorage
import HostedTestSupport
import Testing

/// A bundle past its limits is refused cleanly, on both stores: 409 `evidence_too_large` (a
/// `DomainError`, never a 500) and nothing recorded in the chain.
@Suite struct EvidenceLimitsTests {
    @Test(arguments: Store.allCases)
    func export_409_pastTheLimits_recordsNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let before = f.events(id)
        let database = f.app.application.database
        let events = EventStore(database: database)
        // The application's own keys: its verifications are sealed with them.
        let sealing = PersonalSealing(secretKey: try SecretKey.load(f.app.application.configuration, random: SecureRandom()).bytes(),
                                      random: SecureRandom())
        var service = EvidenceService(verifications: VerificationStore(database: database, changes: LocalChangeFeed(), sealing: sealing,
                                                                       events: events),
                                      events: events, artifacts: ArtifactStore(database: database, keys: sealing.keys),
                                      verificationJSON: APIObjects.VerificationJSON(publicURL: URL(string: "https://verify.example.com")!),
                                      signer: nil, clock: f.clock)
        service.limits = ZipArchive.Limits(maximumEntries: 2)  // the manifest, the profile form and the selfie make three
        let tenancy = Tenancy(accountID: f.accountID, livemode: true)
        let verificationID = try #require(ObjectID(.verification, parsing: id))
        #expect(throws: DomainError.conflict(detail: "This verification's evidence is larger than a bundle may be; fetch its artifacts one by one.",
                                             code: .evidenceTooLarge)) {
            try service.export(tenancy: tenancy, verificationID: verificationID, by: .system)
        }
        #expect(f.events(id).count == before.count)
        service.limits = ZipArchive.Limits(maximumEntries: 3)
        let bundle = try service.export(tenancy: tenancy, verificationID: verificationID, by: .system)
        #expect(try UnzippedArchive(bundle.bytes).names.count == 3)
        #expect(f.events(id).last?["type"] as? String == "verification.evidence_exported")
    }
}
