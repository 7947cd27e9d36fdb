import Foundation
import HostedApp
import HostedCrypto
import HostedHTTP
import HostedTestSupport
import Testing

/// The evidence bundle (issue 40, docs/evidence.md) on SQLite and PostgreSQL, read back with
/// Python's `zipfile`: the manifest is the API's own word (the verification, the events, the
/// artifacts' hashes), the chain recomputes, the detached JWS verifies against the served JWKS,
/// redaction leaves the manifest alone, another account gets 404, and every export is in the
/// chain with its actor (API key, operator, system). tests/e2e/test_evidence.py checks the same
/// as a customer, with jwcrypto.
@Suite struct EvidenceBundleTests {
    typealias Fixture = ConsoleTests.Fixture

    /// Profile, a selfie retaken once (the first stays, superseded), submitted.
    static func submittedWithRetake(_ f: Fixture) throws -> String {
        let id = f.json(f.post("/v1/verifications", #"{"user_id":"user-1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
        let session = f.app.journeySession(verificationID: id, auth: f.auth)
        #expect(f.app.journey("POST", id, "/api/steps/profile/profile", body: #"{"full_name":"Asha Verma","date_of_birth":"1990-04-01"}"#,
                              session: session).status == 200)
        let first = f.json(f.app.journey("POST", id, "/api/steps/selfie/images", body: ConsoleTests.photo, contentType: "image/jpeg",
                                         session: session))["artifact_id"] as? String ?? ""
        #expect(f.app.journey("DELETE", id, "/api/steps/selfie/images/\(first)", session: session).status == 204)
        #expect(f.app.journey("POST", id, "/api/steps/selfie/images", body: ConsoleTests.photo, contentType: "image/jpeg",
                              session: session).status == 201)
        #expect(f.app.journey("POST", id, "/api/steps/selfie/complete", session: session).status == 200)
        f.clock.advance(by: 1)
        #expect(f.app.journey("POST", id, "/api/submit", session: session).status == 200)
        return id
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func sha256(_ bytes: [UInt8]) -> String { Digest.hex(Digest.sha256(bytes)) }

    /// Each event's hash from its own members (DESIGN.md: SHA-256 of the previous hash, a line
    /// feed and the canonical JSON without both hashes), each link to the one before.
    static func chainHolds(_ events: [[String: Any]]) throws -> Bool {
        var previous: String?
        for event in events {
            guard event["previous_hash"] as? String == previous else { return false }
            var members = event
            members["hash"] = nil
            members["previous_hash"] = nil
            let canonical = try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes])
            let hash = sha256(Array((previous ?? "").utf8) + [0x0A] + Array(canonical))
            guard event["hash"] as? String == hash else { return false }
            previous = hash
        }
        return true
    }

    /// The bundle's detached JWS checked with the key its `kid` names in the served JWKS.
    static func signatureHolds(_ jws: String, over manifest: [UInt8], app: TestApplication) throws -> Bool {
        let jwks = try object(app.request("GET", "/.well-known/jwks.json").body)["keys"] as? [[String: Any]] ?? []
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].isEmpty, let kid = JWS.unverifiedHeader(of: jws)?["kid"] as? String,
              let jwk = jwks.first(where: { $0["kid"] as? String == kid }),
              let key = try? ES256PublicKey(jwkX: jwk["x"] as? String ?? "", jwkY: jwk["y"] as? String ?? "")
        else { return false }
        return JWS.verify(jws, key: key, detachedPayload: manifest) != nil
    }

    @Test(arguments: Store.allCases)
    func evidence_200_theManifestIsTheAPIsOwnWord(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try Self.submittedWithRetake(f)
        #expect(f.post("/v1/verifications/\(id)/decision", #"{"decision":"approved"}"#).status == 200)
        let eventsBefore = f.events(id)
        let shown = f.get("/v1/verifications/\(id)")

        let response = f.get("/v1/verifications/\(id)/evidence")
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.headers["Content-Type"] == "application/zip")
        #expect(response.headers["Content-Disposition"] == "attachment; filename=\"evidence-\(id).zip\"")
        #expect(response.headers["Cache-Control"] == "no-store")
        let zip = try UnzippedArchive(response.body)
        let manifestBytes = try #require(zip["manifest.json"]?.bytes)
        let manifest = try Self.object(manifestBytes)

        // The verification exactly as GET /v1/verifications/{id} answers it, byte for byte.
        #expect(String(decoding: manifestBytes, as: UTF8.self).contains(#""verification":"# + String(decoding: shown.body, as: UTF8.self)))
        #expect((manifest["verification"] as? NSDictionary) == (try Self.object(shown.body) as NSDictionary))

        // The events as the events API renders them, the chain recomputed, its head.
        let events = try #require(manifest["events"] as? [[String: Any]])
        #expect((events as NSArray) == (eventsBefore as NSArray))
        #expect(try Self.chainHolds(events))
        #expect(manifest["chain_head"] as? String == eventsBefore.last?["hash"] as? String)

        // Each artifact: its hash is the entry's and the API download's; what the checks found.
        let artifacts = try #require(manifest["artifacts"] as? [[String: Any]])
        #expect(artifacts.count == 3)
        for artifact in artifacts {
            let artifactID = try #require(artifact["id"] as? String)
            let path = try #require(artifact["path"] as? String)
            let entry = try #require(zip[path], "\(path)")
            let downloaded = f.get("/v1/verifications/\(id)/artifacts/\(artifactID)")
            #expect(downloaded.status == 200)
            #expect(artifact["sha256"] as? String == Self.sha256(entry.bytes))
            #expect(artifact["sha256"] as? String == Self.sha256(downloaded.body))
            #expect(artifact["bytes"] as? Int == downloaded.body.count)
            #expect(entry.compressType == (path.hasSuffix(".jpg") ? 0 : 8), "JPEGs stored as they are")
            #expect(artifact["captured_at"] is String)
        }
        let photos = artifacts.filter { $0["step"] as? String == "selfie" }
        #expect(photos.map { $0["path"] as? String }.allSatisfy { $0?.hasPrefix("artifacts/art_") == true && $0?.hasSuffix(".jpg") == true })
        #expect(photos.map { $0["superseded"] as? Bool } == [true, false])
        #expect(photos.allSatisfy { ($0["quality"] as? [String: Any])?["reasons"] is [String] })
        let profile = try #require(artifacts.first { $0["step"] as? String == "profile" })
        #expect(profile["quality"] is NSNull && profile["superseded"] as? Bool == false && (profile["path"] as? String)?.hasSuffix(".json") == true)
        #expect(Set(zip.names) == Set(["manifest.json", "manifest.json.jws"] + artifacts.compactMap { $0["path"] as? String }))

        // The decision, by the API key.
        let decisions = try #require(manifest["decisions"] as? [[String: Any]])
        #expect(decisions.map { $0["decision"] as? String } == ["approved"])
        #expect((decisions.first?["actor"] as? [String: Any])?["type"] as? String == "api_key")
        #expect(manifest["generated_at"] is String)

        // Signed with the result keys.
        let jws = String(decoding: try #require(zip["manifest.json.jws"]?.bytes), as: UTF8.self)
        #expect(try Self.signatureHolds(jws, over: manifestBytes, app: f.app))
        #expect(try !Self.signatureHolds(jws, over: manifestBytes + [0x20], app: f.app))

        // The export is the chain's next link, by the key, naming the manifest it served.
        let after = f.events(id)
        #expect(after.count == eventsBefore.count + 1)
        let exported = try #require(after.last)
        #expect(exported["type"] as? String == "verification.evidence_exported")
        #expect(exported["previous_hash"] as? String == manifest["chain_head"] as? String)
        #expect((exported["actor"] as? [String: Any])?["type"] as? String == "api_key")
        #expect(((exported["actor"] as? [String: Any])?["id"] as? String)?.hasPrefix("key_") == true)
        #expect((exported["data"] as? [String: Any])?["manifest_sha256"] as? String == Self.sha256(manifestBytes))
        #expect(try Self.chainHolds(after))
        #expect(try EventStoreAudit.verify(f.app))
        // Exporting changes nothing about the verification.
        #expect(f.get("/v1/verifications/\(id)").body == shown.body)
    }

    @Test(arguments: Store.allCases)
    func evidence_afterRedaction_holdsTheManifestAlone(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try Self.submittedWithRetake(f)
        #expect(f.post("/v1/verifications/\(id)/decision", #"{"decision":"rejected","reason":"document_blurry"}"#).status == 200)
        let before = try Self.object(try UnzippedArchive(f.get("/v1/verifications/\(id)/evidence").body)["manifest.json"]?.bytes ?? [])
        #expect(f.post("/v1/verifications/\(id)/redact", "{}").status == 200)

        let response = f.get("/v1/verifications/\(id)/evidence")
        #expect(response.status == 200)
        let zip = try UnzippedArchive(response.body)
        #expect(zip.names == ["manifest.json", "manifest.json.jws"])
        let manifestBytes = try #require(zip["manifest.json"]?.bytes)
        let manifest = try Self.object(manifestBytes)
        #expect((manifest["verification"] as? [String: Any])?["redacted_at"] is String)
        #expect((manifest["verification"] as? [String: Any])?["user_id"] is NSNull)
        let artifacts = try #require(manifest["artifacts"] as? [[String: Any]])
        let earlier = try #require(before["artifacts"] as? [[String: Any]])
        // Every artifact still listed, with the hash and size it had, and no bytes.
        #expect(artifacts.map { $0["id"] as? String } == earlier.map { $0["id"] as? String })
        #expect(artifacts.map { $0["sha256"] as? String } == earlier.map { $0["sha256"] as? String })
        #expect(artifacts.map { $0["bytes"] as? Int } == earlier.map { $0["bytes"] as? Int })
        #expect(artifacts.allSatisfy { $0["path"] is NSNull && $0["location"] == nil })
        #expect(!String(decoding: manifestBytes, as: UTF8.self).contains("user-1"))
        #expect(try Self.chainHolds(manifest["events"] as? [[String: Any]] ?? []))
        #expect((manifest["events"] as? [[String: Any]])?.last?["type"] as? String == "verification.redacted")
        let jws = String(decoding: try #require(zip["manifest.json.jws"]?.bytes), as: UTF8.self)
        #expect(try Self.signatureHolds(jws, over: manifestBytes, app: f.app))
        #expect(f.events(id).last?["type"] as? String == "verification.evidence_exported")
    }

    @Test(arguments: Store.allCases)
    func evidence_404_forAnotherAccount_andBadIDs_recordingNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let other = try f.app.application.accounts.createAccount(name: "Other")
        let otherAuth = [("Authorization", "Bearer \(other.secret.value)")]
        let count = f.events(id).count
        for (path, headers) in [("/v1/verifications/\(id)/evidence", otherAuth),
                                ("/v1/verifications/nope/evidence", f.auth),
                                ("/v1/verifications/ver_aaaaaaaaaaaaaaaaaaaaaaaaaa/evidence", f.auth),
                                ("/v1/verifications/\(id)x/evidence", f.auth)] {
            let response = f.app.request("GET", path, headers: headers)
            #expect(response.status == 404, "\(path)")
            #expect(response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true, "\(path)")
            #expect(f.code(response) == "not_found", "\(path)")
        }
        #expect(f.app.request("GET", "/v1/verifications/\(id)/evidence").status == 401)
        // The account's test key sees none of its live data.
        let testKey = try #require(f.json(f.post("/v1/api_keys", #"{"mode":"test"}"#))["secret"] as? String)
        let otherMode = f.app.request("GET", "/v1/verifications/\(id)/evidence", headers: [("Authorization", "Bearer \(testKey)")])
        #expect(otherMode.status == 404 && f.code(otherMode) == "not_found")
        let query = f.get("/v1/verifications/\(id)/evidence?format=tar")
        #expect((400..<500).contains(query.status) && query.headers["Content-Type"]?.hasPrefix("application/problem+json") == true)
        #expect(f.events(id).count == count)
    }

    @Test(arguments: Store.allCases)
    func consoleEvidence_200_recordsTheOperator_404_forAnotherAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        let operatorID = try f.activeOperator("ana@acme.example")
        let cookie = try #require(f.signIn("ana@acme.example"))
        #expect(f.app.console("GET", "/console/api/verifications/\(id)/evidence").status == 401)

        let response = f.app.console("GET", "/console/api/verifications/\(id)/evidence", cookie: cookie)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/zip")
        #expect(response.headers["Content-Disposition"] == "attachment; filename=\"evidence-\(id).zip\"")
        let manifest = try Self.object(try UnzippedArchive(response.body)["manifest.json"]?.bytes ?? [])
        #expect((manifest["verification"] as? NSDictionary) == (f.verification(id) as NSDictionary))
        let exported = try #require(f.events(id).last)
        #expect(exported["type"] as? String == "verification.evidence_exported")
        #expect((exported["actor"] as? [String: Any])?["type"] as? String == "operator")
        #expect((exported["actor"] as? [String: Any])?["id"] as? String == operatorID)

        let other = try f.app.application.accounts.createAccount(name: "Other")
        try f.activeOperator("raj@other.example", account: other.account.id)
        let otherCookie = try #require(f.signIn("raj@other.example"))
        let refused = f.app.console("GET", "/console/api/verifications/\(id)/evidence", cookie: otherCookie)
        #expect(refused.status == 404 && f.code(refused) == "not_found")
        #expect(f.events(id).last?["id"] as? String == exported["id"] as? String)
    }

    @Test(arguments: Store.allCases)
    func commandLine_writesThe0600Bundle_andRecordsTheSystem(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.submitted()
        var environment = ["HOSTED_DATABASE_URL": f.app.database.environmentValue]
        if store == .postgres { environment["HOSTED_SECRET_KEY"] = String(repeating: "test-key-", count: 8) }
        let out = f.app.database.directory.appendingPathComponent("bundle-\(UUID().uuidString).zip").path
        defer { unlink(out) }

        let help = try HostedBinary.run(["evidence", "--help"], environment: environment)
        #expect(help.status == 0 && help.stdout.contains("Usage: hosted evidence export"))
        let run = try HostedBinary.run(["evidence", "export", id, "--out", out], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let printed = try Self.object(Array(run.stdout.utf8))
        let file = Array(try #require(FileManager.default.contents(atPath: out)))
        #expect(printed["verification_id"] as? String == id)
        #expect(printed["bytes"] as? Int == file.count)
        #expect(printed["sha256"] as? String == Self.sha256(file))
        #expect(printed["path"] as? String == out)
        var status = stat()
        #expect(stat(out, &status) == 0 && status.st_mode & 0o777 == 0o600)
        let zip = try UnzippedArchive(file)
        let manifestBytes = try #require(zip["manifest.json"]?.bytes)
        #expect(try Self.signatureHolds(String(decoding: zip["manifest.json.jws"]?.bytes ?? [], as: UTF8.self), over: manifestBytes, app: f.app))
        let exported = try #require(f.events(id).last)
        #expect(exported["type"] as? String == "verification.evidence_exported")
        #expect((exported["actor"] as? [String: Any])?["type"] as? String == "system")

        let unknown = try HostedBinary.run(["evidence", "export", "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa", "--out", out + ".x"], environment: environment)
        #expect(unknown.status != 0 && !unknown.stderr.isEmpty && unknown.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out + ".x"))
        #expect(try HostedBinary.run(["evidence", "export", id], environment: environment).status == 64)
    }
}
