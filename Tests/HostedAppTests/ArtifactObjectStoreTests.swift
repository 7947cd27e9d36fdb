import Foundation
@testable import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedOutbound
import HostedStorage
import HostedTestSupport
import Testing

/// Artifacts in S3-compatible storage (issue 41), on both databases, against a real OpenStack
/// Swift on loopback (`scripts/with-swift.sh`): uploads sealed with the verification's data key
/// under keys without personal data, downloads checked against the row's SHA-256, redaction that
/// shreds the key at once and deletes the objects in the background, a store that is down or
/// refuses the credentials (503, nothing committed), and the orphan sweep on an injected clock.
@Suite struct ArtifactObjectStoreTests {
    static var s3Available: Bool { TestObjectStore.availability { Issue.record(Comment(rawValue: $0)) } }

    struct Fixture: JourneyFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let id: String
        let accountID: String
        let cookie: String
        let prefix: String

        /// `url` nil: the test Swift under a prefix of this test's own.
        /// `cached`: the process keeps sealed objects it read or wrote (`Memo.objects`, on by default).
        init(_ store: Store, url: String? = nil, secret: String? = nil, clock: any WallClock = SystemWallClock(), cached: Bool = true) throws {
            let prefix = "t-" + UUID().uuidString.prefix(12).lowercased()
            let text = try #require(url ?? TestObjectStore.url(prefix: prefix))
            let location = try #require(S3Location(text))
            self.prefix = location.prefix
            app = try TestApplication(store: store, clock: clock) { configuration in
                configuration.artifactStore = .s3(location)
                configuration.s3AccessKeyID = TestObjectStore.accessKeyID
                configuration.s3SecretAccessKey = secret ?? TestObjectStore.secretAccessKey
                if !cached { configuration.disabledMemos = [.objects] }
            }
            let created = try app.application.accounts.createAccount(name: "Acme")
            accountID = created.account.id.rawValue
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            #expect(app.request("POST", "/v1/workflows", headers: auth, body: #"""
                {"key":"kyc","name":"KYC","steps":[{"type":"selfie"},{"type":"premises_photos","id":"shop","min":1,"max":3}]}
                """#).status == 201)
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"user-ravi-42","workflow":"kyc","mobile":"+919876543210","metadata":{"pan":"ABCDE1234F"}}"#))["id"] as? String ?? ""
            cookie = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }
        var journeySession: String? { cookie }

        func upload(_ step: String = "selfie") -> Response {
            journey("POST", "/api/steps/\(step)/images", body: JourneyStepTests.photo, contentType: "image/jpeg")
        }

        func download(_ artifact: String) -> Response { get("/v1/verifications/\(id)/artifacts/\(artifact)") }

        func rows() throws -> [(id: String, storage: String, key: String?, sha256: String?, bytes: Int64?)] {
            try app.application.database.query("SELECT id, storage, object_key, sha256, bytes FROM artifacts ORDER BY id").map { row in
                (try row.string("id"), try row.string("storage"), try row.optionalString("object_key"), try row.optionalString("sha256"),
                 try row.optionalInt("bytes"))
            }
        }

        func captures(_ step: String = "selfie") -> [[String: Any]] {
            let steps = json(get("/v1/verifications/\(id)"))["steps"] as? [[String: Any]] ?? []
            return steps.first { $0["id"] as? String == step }?["captures"] as? [[String: Any]] ?? []
        }

        var client: S3Client {
            S3Client(location: S3Location(TestObjectStore.url(prefix: prefix)!)!,
                     credentials: S3Credentials(accessKeyID: TestObjectStore.accessKeyID, secretAccessKey: TestObjectStore.secretAccessKey))
        }
    }

    @Test(arguments: Store.allCases)
    func upload_201_storesASealedObjectUnderIdsOnly_andTheDownloadIsChecked(_ store: Store) throws {
        guard store.isAvailable, Self.s3Available else { return }
        let f = try Fixture(store, cached: false)  // every download a GET: the tampering below must be seen
        defer { f.app.close() }
        let uploaded = f.upload()
        #expect(uploaded.status == 201)
        let artifact = try #require(f.json(uploaded)["artifact_id"] as? String)
        let row = try #require(try f.rows().first)
        #expect(row.id == artifact && row.storage == "s3")
        // The key names ids only: no user id, mobile number or metadata.
        #expect(row.key == "\(f.prefix)/\(f.accountID)/\(f.id)/\(artifact)")
        for personal in ["user-ravi-42", "9876543210", "ABCDE1234F"] { #expect(row.key?.contains(personal) == false) }
        #expect(try f.app.application.database.query("SELECT length(content) AS n FROM artifacts")[0].int("n") == 0)

        let downloaded = f.download(artifact)
        #expect(downloaded.status == 200)
        #expect(downloaded.body.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(downloaded.body.count > 500)  // the photo as re-encoded on upload
        // At rest: AES-256-GCM ciphertext (nonce ‖ body ‖ tag), no JPEG marker, no JPEG header.
        let object = try f.client.get(try #require(row.key))
        #expect(object.count == downloaded.body.count + 28 && Int64(object.count) == row.bytes)
        #expect(Digest.hex(Digest.sha256(object)) == row.sha256)
        #expect(!object.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(Data(object).range(of: Data(downloaded.body.prefix(24))) == nil)

        // Bytes that are not the row's: never served.
        try f.client.put(try #require(row.key), Array(object.reversed()))
        let tampered = f.download(artifact)
        #expect(tampered.status == 503 && f.code(tampered) == "artifact_integrity_failed")
        #expect(!tampered.body.starts(with: [0xFF, 0xD8, 0xFF]))
    }

    /// With the cache (the default), a second download needs no store: it is served while the
    /// store is unreachable, checked all the same; a redaction still answers 410 at once.
    @Test(arguments: Store.allCases)
    func download_fromTheCache_isCheckedAndStillShreddedByRedaction(_ store: Store) throws {
        guard store.isAvailable, Self.s3Available else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let artifact = try #require(f.json(f.upload())["artifact_id"] as? String)
        let first = f.download(artifact)
        #expect(first.status == 200)
        let key = try #require(try f.rows().first?.key)
        try f.client.delete(key)  // gone from the store: only the cache has it
        let again = f.download(artifact)
        #expect(again.status == 200 && again.body == first.body)
        #expect(f.post("/v1/verifications/\(f.id)/cancel", "").status == 200)
        #expect(f.post("/v1/verifications/\(f.id)/redact", "").status == 200)
        #expect(f.download(artifact).status == 410)
    }

    @Test(arguments: Store.allCases)
    func redaction_410AtOnce_andTheSweeperDeletesTheObjects(_ store: Store) throws {
        guard store.isAvailable, Self.s3Available else { return }
        let f = try Fixture(store)
        defer { f.app.close() }
        let artifacts = [f.upload(), f.upload("shop"), f.upload("shop")].compactMap { f.json($0)["artifact_id"] as? String }
        #expect(artifacts.count == 3)
        let keys = try f.rows().compactMap(\.key)
        #expect(keys.count == 3)
        for key in keys { #expect(try f.client.exists(key)) }
        #expect(f.post("/v1/verifications/\(f.id)/cancel", "").status == 200)
        #expect(f.post("/v1/verifications/\(f.id)/redact", "").status == 200)
        // The key is gone with the redaction's commit: every download is 410 before any object is deleted.
        let sealed = try f.app.application.database.query("SELECT data_key, redacted_at FROM verifications WHERE id = \(f.id)")
        #expect(sealed.count == 1 && sealed[0]["data_key"] == .null)
        #expect(try sealed[0].optionalInt("redacted_at") != nil)
        for artifact in artifacts {
            let gone = f.download(artifact)
            #expect(gone.status == 410 && f.code(gone) == "artifact_redacted")
        }
        for key in keys { #expect(try f.client.exists(key)) }
        f.app.application.runBackgroundWork()
        for key in keys { #expect(try !f.client.exists(key)) }
        #expect(try f.app.application.database.query("SELECT count(*) AS n FROM artifact_object_deletions")[0].int("n") == 0)
    }

    /// A store that does not answer, or refuses the credentials: 503, no artifact row, no step change; never the database.
    @Test(arguments: Store.allCases)
    func upload_503_commitsNothing_whenTheStoreIsDownOrRefusesTheCredentials(_ store: Store) throws {
        guard store.isAvailable, Self.s3Available else { return }
        let closed = "s3://hosted-test?endpoint=http://127.0.0.1:9&region=us-east-1&path_style=true"
        for fixture in [try Fixture(store, url: closed), try Fixture(store, secret: "not-the-secret")] {
            defer { fixture.app.close() }
            let refused = fixture.upload()
            #expect(refused.status == 503)
            #expect(fixture.code(refused) == "artifact_store_unavailable")
            #expect(try fixture.rows().isEmpty)
            #expect(fixture.captures().isEmpty)
            #expect(fixture.journey("POST", "/api/steps/selfie/complete", body: "{}").status != 200)
            let ready = fixture.app.request("GET", "/readyz")
            #expect(ready.status == 503)
            #expect(String(decoding: ready.body, as: UTF8.self).contains("artifact store"))
            #expect(!String(decoding: ready.body, as: UTF8.self).contains("not-the-secret"))
        }
    }

    /// An object written with no row (a crash between the PUT and the commit) is deleted once its
    /// intent is older than HOSTED_ORPHAN_GRACE_SECONDS, and not before.
    @Test(arguments: Store.allCases)
    func orphanSweep_deletesAnObjectWithNoRowAfterTheGrace(_ store: Store) throws {
        guard store.isAvailable, Self.s3Available else { return }
        let clock = ManualClock()
        let f = try Fixture(store, clock: clock)
        defer { f.app.close() }
        #expect(f.upload().status == 201)  // a committed artifact: never an orphan
        let kept = try #require(try f.rows().first?.key)
        // The service's own keys: the object is sealed with the verification's data key.
        let secretKey = try SecretKey.load(f.app.application.configuration, random: SecureRandom()).bytes()
        let backend = ObjectArtifactBackend(database: f.app.application.database, objects: f.client,
                                            keys: DataKeyStore(secretKey: secretKey, random: SecureRandom()))
        let orphanID = ObjectID(.artifact, using: SecureRandom())
        // Written and never committed: an orphan of the fixture's verification.
        let prepared = try backend.prepare(JourneyStepTests.photo, artifactID: orphanID, verificationID: ObjectID(.verification, parsing: f.id)!,
                                           accountID: ObjectID(.account, parsing: f.accountID)!, at: clock.now())
        let orphan = try #require(prepared.objectKey)
        f.app.application.runBackgroundWork()
        #expect(try f.client.exists(orphan))
        clock.advance(by: 3600 - 5)
        f.app.application.runBackgroundWork()
        #expect(try f.client.exists(orphan))
        clock.advance(by: 40)
        f.app.application.runBackgroundWork()
        #expect(try !f.client.exists(orphan))
        #expect(try f.client.exists(kept))
        #expect(f.download(try #require(try f.rows().first?.id)).status == 200)
    }
}
