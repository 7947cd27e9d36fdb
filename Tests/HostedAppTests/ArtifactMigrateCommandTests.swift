import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedOutbound
import HostedStorage
import HostedTestSupport
import Testing

/// `hosted artifacts migrate --to s3://…` (the real binary) against a real Swift, both
/// databases: killed part-way, the artifacts moved and not yet moved are all readable by a node
/// configured for the object store; run again, it finishes, and every download is unchanged.
@Suite struct ArtifactMigrateCommandTests {
    @Test(arguments: Store.allCases)
    func migrate_resumesAfterAKill_andEveryArtifactStaysReadable(_ store: Store) throws {
        guard store.isAvailable, ArtifactObjectStoreTests.s3Available else { return }
        let app = try TestApplication(store: store)
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme")
        let auth = [("Authorization", "Bearer \(created.secret.value)")]
        #expect(app.request("POST", "/v1/workflows", headers: auth, body: #"""
            {"key":"kyc","name":"KYC","steps":[{"type":"selfie"},{"type":"premises_photos","id":"shop","min":1,"max":3}]}
            """#).status == 201)
        var artifacts: [(verification: String, id: String)] = []
        for user in ["u1", "u2"] {
            let id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                          body: #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            let session = app.journeySession(verificationID: id, auth: auth)
            for step in ["selfie", "shop", "shop", "shop"] {
                let uploaded = app.journey("POST", id, "/api/steps/\(step)/images", body: JourneyStepTests.photo, contentType: "image/jpeg",
                                           session: session)
                artifacts.append((id, try #require(app.json(uploaded)["artifact_id"] as? String)))
            }
        }
        func download(_ application: Application, _ artifact: (verification: String, id: String)) -> Response {
            let request = Request(method: "GET", path: "/v1/verifications/\(artifact.verification)/artifacts/\(artifact.id)",
                                  headers: HTTPHeaders(auth))
            return (try? TestApplication.response(of: application.responder.respond(to: request, context: RequestContext(requestID: "t"))))
                ?? Response(status: 599)
        }
        let original = artifacts.map { download(app.application, $0).body }
        #expect(original.allSatisfy { $0.starts(with: [0xFF, 0xD8, 0xFF]) })

        let prefix = "migrate-" + UUID().uuidString.prefix(8).lowercased()
        let url = try #require(TestObjectStore.url(prefix: prefix))
        var environment = ["HOSTED_S3_ACCESS_KEY_ID": TestObjectStore.accessKeyID, "HOSTED_S3_SECRET_ACCESS_KEY": TestObjectStore.secretAccessKey,
                           "HOSTED_DATABASE_URL": app.database.environmentValue]
        if store == .postgres { environment["HOSTED_SECRET_KEY"] = String(repeating: "test-key-", count: 8) }
        let out = app.database.directory.appendingPathComponent("migrate.out").path
        let first = try Subprocess(HostedBinary.path, ["artifacts", "migrate", "--to", url, "--batch-size", "1", "--pause-ms", "300"],
                                   environment: environment, stdout: out, stderr: app.database.directory.appendingPathComponent("migrate.err").path)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").count < 2 {
            usleep(20_000)
        }
        first.signal(SIGKILL)
        #expect(first.wait() == 128 + SIGKILL)
        func storages() throws -> [String] {
            try app.application.database.query("SELECT storage FROM artifacts").map { try $0.string("storage") }
        }
        let moved = try storages().filter { $0 == "s3" }.count
        #expect(moved >= 2 && moved < artifacts.count, "moved \(moved) before the kill")

        // A node configured for the store reads both kinds of row while the move is half done.
        var configuration = Configuration()
        configuration.database = app.database.url
        configuration.publicURL = URL(string: TestApplication.origin)!
        if store == .postgres { configuration.secretKey = String(repeating: "test-key-", count: 8) }
        configuration.artifactStore = .s3(try #require(S3Location(url)))
        configuration.s3AccessKeyID = TestObjectStore.accessKeyID
        configuration.s3SecretAccessKey = TestObjectStore.secretAccessKey
        let node = try buildApplication(configuration: configuration)
        defer { node.close() }
        #expect(artifacts.map { download(node, $0).body } == original)

        let second = try HostedBinary.run(["artifacts", "migrate", "--to", url], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        let summary = try #require(second.stdout.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        #expect(json["ok"] as? Bool == true && json["remaining"] as? Int == 0 && json["moved"] as? Int == artifacts.count - moved)
        #expect(try storages().allSatisfy { $0 == "s3" })
        #expect(try app.application.database.query("SELECT max(length(content)) AS n FROM artifacts")[0].int("n") == 0)
        #expect(artifacts.map { download(node, $0).body } == original)
        // Nothing left over: every intent was consumed.
        #expect(try app.application.database.query("SELECT count(*) AS n FROM artifact_object_intents")[0].int("n") == 0)

        let help = try HostedBinary.run(["artifacts", "--help"])
        #expect(help.status == 0 && help.stdout.contains("artifacts migrate --to"))
        let refused = try HostedBinary.run(["artifacts", "migrate", "--to", "s3://x"], environment: environment)
        #expect(refused.status == 64)
    }
}
