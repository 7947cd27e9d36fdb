import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// The signed result on return (issue 40, docs/results.md), on both stores: the return URL's
/// `#hosted_result=` JWS checked with only the served JWKS, the handoff's nonce, rotation and
/// the sealed keys.
@Suite struct SignedResultTests {
    static let secret = "signed-results-secret-key-0123456789abcdef"

    /// An account with a profile-only workflow and a registered return URL, on a manual clock.
    struct Fixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let accountID: String
        let clock: ManualClock

        init(_ store: Store) throws {
            let clock = ManualClock(Date(unixMilliseconds: 1_795_000_000_000))
            self.clock = clock
            app = try TestApplication(store: store, clock: clock) { $0.secretKey = SignedResultTests.secret }
            let created = try app.application.accounts.createAccount(name: "Acme")
            accountID = created.account.id.rawValue
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            #expect(app.request("POST", "/v1/return_urls", headers: auth, body: #"{"url":"https://app.example.com/done"}"#).status == 201)
            #expect(app.request("POST", "/v1/workflows", headers: auth,
                                body: #"{"key":"kyc","name":"KYC","steps":[{"type":"profile"}]}"#).status == 201)
        }

        func verification(user: String = "u1") -> String {
            json(post("/v1/verifications", #"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210","return_url":"https://app.example.com/done"}"#))["id"] as? String ?? ""
        }

        /// A handoff with `body`, exchanged like the page does: the session cookie.
        func signIn(_ id: String, handoff body: String = "{}") -> String {
            let url = json(post("/v1/verifications/\(id)/handoffs", body))["url"] as? String ?? ""
            let secret = String(url.split(separator: "#").last?.dropFirst("handoff=".count) ?? "")
            return app.journey("POST", id, "/api/session", body: #"{"handoff":"\#(secret)"}"#).cookie("hosted_session") ?? ""
        }

        /// Signs in through a handoff made with `body`, fills the profile and submits: the redirect URL.
        func submit(user: String = "u1", handoff body: String = "{}") throws -> (id: String, url: String) {
            let id = verification(user: user)
            let session = signIn(id, handoff: body)
            #expect(app.journey("POST", id, "/api/steps/profile/profile", body: #"{"full_name":"Asha Rao","date_of_birth":"1990-04-01"}"#,
                                session: session).status == 200)
            let submitted = app.journey("POST", id, "/api/submit", session: session)
            #expect(submitted.status == 200)
            return (id, try #require(json(submitted)["redirect_url"] as? String))
        }

        func jwks() -> [[String: String]] {
            (json(app.request("GET", "/.well-known/jwks.json"))["keys"] as? [[String: String]]) ?? []
        }

        func close() { app.close() }
    }

    /// The JWS from a redirect URL's fragment.
    static func result(in url: String) throws -> String {
        let fragment = try #require(URLComponents(string: url)?.fragment)
        #expect(fragment.hasPrefix("hosted_result="))
        return String(fragment.dropFirst("hosted_result=".count))
    }

    /// Verifies `jws` with the JWKS key its `kid` names, as a customer would: its header and claims.
    static func verify(_ jws: String, with keys: [[String: String]]) throws -> (header: [String: Any], claims: [String: Any]) {
        let kid = try #require(JWS.unverifiedHeader(of: jws)?["kid"] as? String)
        let jwk = try #require(keys.first { $0["kid"] == kid })
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["alg"] == "ES256" && jwk["use"] == "sig")
        let key = try ES256PublicKey(jwkX: try #require(jwk["x"]), jwkY: try #require(jwk["y"]))
        let verified = try #require(JWS.verify(jws, key: key))
        let header = try #require(try JSONSerialization.jsonObject(with: Data(verified.header)) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
        return (header, claims)
    }

    @Test(arguments: Store.allCases)
    func submit_returnURLCarriesAResultSignedByAKeyOfTheJWKS(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (id, url) = try f.submit(handoff: #"{"nonce":"n-0S8f~ A+/=?"}"#)
        // The query still says which verification and what status (the poll confirms it).
        #expect(url.hasPrefix("https://app.example.com/done?verification_id=\(id)&status=submitted#hosted_result="))
        let jws = try Self.result(in: url)
        let keys = f.jwks()
        #expect(keys.count == 1)
        let (header, claims) = try Self.verify(jws, with: keys)
        let kid = try #require(keys.first?["kid"])
        #expect(kid.hasPrefix("sig_"))
        // The header's exact bytes, as documented.
        let headerBytes = Base64URL.decode(String(jws.split(separator: ".")[0]))
        #expect(headerBytes == Array(#"{"alg":"ES256","kid":"\#(kid)","typ":"hosted-result+jwt"}"#.utf8))
        #expect(header["typ"] as? String == "hosted-result+jwt")
        let now = Int64(f.clock.now().timeIntervalSince1970)
        #expect(claims["iss"] as? String == "https://verify.example.com")
        #expect(claims["aud"] as? String == f.accountID)
        #expect(claims["sub"] as? String == id)
        #expect(claims["status"] as? String == "submitted")
        #expect(claims["workflow"] as? String == "kyc")
        #expect(claims["livemode"] as? Bool == true)
        #expect((claims["iat"] as? NSNumber)?.int64Value == now)
        #expect((claims["exp"] as? NSNumber)?.int64Value == now + 600)
        #expect(claims["nonce"] as? String == "n-0S8f~ A+/=?")
        #expect(Base64URL.decode(try #require(claims["jti"] as? String))?.count == 16)
        // A second result has another jti; any change to the token breaks it.
        let (_, second) = try f.submit(user: "u2")
        let other = try Self.verify(try Self.result(in: second), with: keys).claims
        #expect(other["jti"] as? String != claims["jti"] as? String)
        #expect(other["nonce"] == nil)  // no nonce given: none claimed
        var tampered = Array(jws.utf8)
        tampered[tampered.count / 2] ^= 0x01
        let key = try ES256PublicKey(jwkX: try #require(keys[0]["x"]), jwkY: try #require(keys[0]["y"]))
        #expect(JWS.verify(String(decoding: tampered, as: UTF8.self), key: key) == nil)
    }

    @Test(arguments: Store.allCases)
    func handoffNonce_422_unless1To128PrintableASCII(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = f.verification()
        let before = try f.app.application.database.query("SELECT count(*) AS n FROM handoffs")[0].int("n")
        for body in [#"{"nonce":""}"#, #"{"nonce":"\#(String(repeating: "a", count: 129))"}"#, #"{"nonce":"a\u0007b"}"#,
                     #"{"nonce":"tab\there"}"#, #"{"nonce":"caf\u00e9"}"#, #"{"nonce":"a\u007f"}"#, #"{"nonce":42}"#] {
            let refused = f.post("/v1/verifications/\(id)/handoffs", body)
            #expect(refused.status == 422, "\(body)")
            let errors = f.json(refused)["errors"] as? [[String: Any]] ?? []
            #expect(errors.contains { $0["field"] as? String == "nonce" }, "\(body)")
            #expect(f.code(refused) == "invalid_request" || body.contains("42"), "\(body)")
        }
        // Nothing stored on refusal.
        #expect(try f.app.application.database.query("SELECT count(*) AS n FROM handoffs")[0].int("n") == before)
        #expect(f.post("/v1/verifications/\(id)/handoffs", #"{"nonce":"\#(String(repeating: "~", count: 128))"}"#).status == 201)
        #expect(f.post("/v1/verifications/\(id)/handoffs", #"{"nonce":" "}"#).status == 201)
    }

    @Test(arguments: Store.allCases)
    func jwks_200_withoutAuth_cacheableForFiveMinutes_publicPartsOnly(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let response = f.app.request("GET", "/.well-known/jwks.json")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "max-age=300")
        #expect(response.headers["Content-Type"] == "application/json")
        let keys = f.jwks()
        #expect(keys.count == 1)
        #expect(Set(keys[0].keys) == ["kty", "crv", "x", "y", "kid", "alg", "use"])  // never "d"
        // The same bytes every time (one cached body).
        #expect(f.app.request("GET", "/.well-known/jwks.json").body == response.body)
    }

    @Test(arguments: Store.allCases)
    func rotation_newKeySigns_previousPublishedForSevenDays(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let first = try #require(f.jwks().first?["kid"])
        // As `hosted signing-keys rotate` does it: on the database, from outside this process's memory.
        let administration = try SigningKeyAdministration(configuration: f.app.application.configuration,
                                                          database: f.app.application.database, clock: f.clock)
        let rotated = try #require(try JSONSerialization.jsonObject(with: Data(administration.rotate())) as? [String: Any])
        #expect(rotated["previous_kid"] as? String == first)
        let second = try #require(rotated["kid"] as? String)
        #expect(second != first && second.hasPrefix("sig_"))
        // Every process reads the keys again within 10 s.
        f.clock.advance(by: 11)
        #expect(f.jwks().map { $0["kid"] } == [second, first])
        let (_, url) = try f.submit()
        let signed = try Self.result(in: url)
        #expect(JWS.unverifiedHeader(of: signed)?["kid"] as? String == second)
        _ = try Self.verify(signed, with: f.jwks())
        // Still published just before its 7 days are over, gone just after.
        f.clock.advance(by: 7 * 24 * 3600 - 60)
        #expect(f.jwks().map { $0["kid"] } == [second, first])
        f.clock.advance(by: 120)
        #expect(f.jwks().map { $0["kid"] } == [second])
        // The retired key's private half is gone from the store: it can never sign again.
        let rows = try f.app.application.database.query("SELECT id, private_key_sealed FROM signing_keys ORDER BY generation")
        #expect(try rows.map { try $0.string("id") } == [first, second])
        #expect(try rows[0].optionalString("private_key_sealed") == nil)
        #expect(try rows[1].optionalString("private_key_sealed") != nil)
    }

    @Test(arguments: Store.allCases)
    func privateKeyIsSealedWithTheSecretKey_neverStoredClear(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let row = try #require(try f.app.application.database.query("SELECT id, private_key_sealed, public_jwk FROM signing_keys").first)
        let id = try row.string("id")
        let sealedText = try #require(try row.optionalString("private_key_sealed"))
        let sealed = try #require(Data(base64Encoded: sealedText))
        // It opens only with the box derived from the secret key, for its own row.
        let box = SecretBox.derive(from: Array(Self.secret.utf8), label: "hosted/signing-keys/v1")
        let der = try #require(box.open(Array(sealed), context: "signing_keys:\(id)"))
        #expect(box.open(Array(sealed), context: "signing_keys:sig_other") == nil)
        #expect(SecretBox.derive(from: Array("another-secret-key-0123456789abcdef0123".utf8), label: "hosted/signing-keys/v1")
            .open(Array(sealed), context: "signing_keys:\(id)") == nil)
        // It is the key the JWKS publishes.
        let key = try ES256PrivateKey(der: der)
        let jwk = try #require(f.jwks().first)
        #expect(Base64URL.encode(key.publicKey.x) == jwk["x"] && Base64URL.encode(key.publicKey.y) == jwk["y"])
        // No form of the private key is anywhere in the store: not its DER (raw, base64, hex),
        // not its private scalar, not a PEM.
        let stored = try f.app.storedBytes()
        let scalar = Array(der[7..<39])  // SEC 1 ECPrivateKey: 30 77 02 01 01 04 20 ‖ d
        #expect(Data(stored).range(of: Data(der)) == nil)
        #expect(Data(stored).range(of: Data(scalar)) == nil)
        for text in [Data(der).base64EncodedString(), Base64URL.encode(der), Digest.hex(der), Base64URL.encode(scalar),
                     Data(scalar).base64EncodedString(), Digest.hex(scalar), "PRIVATE KEY"] {
            #expect(!stored.contains(text: text), "\(text.prefix(16))")
        }
    }

    @Test(arguments: Store.allCases)
    func severalNodesStartingAtOnce_makeOneFirstKey(_ store: Store) throws {
        guard store.isAvailable else { return }
        let database = try TestDatabaseURL(store)
        defer { database.remove() }
        var configuration = Configuration()
        configuration.database = database.url
        configuration.publicURL = URL(string: "https://verify.example.com")!
        configuration.databasePoolSize = 2
        configuration.secretKey = Self.secret
        let nodes = 6
        let settings = configuration
        let built = Collected<Application>()
        let failures = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: nodes) { _ in
            do { built.append(try buildApplication(configuration: settings)) } catch { failures.append("\(error)") }
        }
        let applications = built.all
        defer { applications.forEach { $0.close() } }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(applications.count == nodes)
        let count = try #require(applications.first).database.query("SELECT count(*) AS n FROM signing_keys")[0].int("n")
        #expect(count == 1)
        // Every node publishes, and would sign with, that one key.
        let bodies = applications.map { app -> [UInt8] in
            let request = Request(method: "GET", path: "/.well-known/jwks.json", headers: HTTPHeaders([]))
            return (try? app.responder.respond(to: request, context: RequestContext(requestID: "test")).response?.body) ?? []
        }
        #expect(Set(bodies).count == 1 && !(bodies.first ?? []).isEmpty)
    }
}
