import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedStorage
import HostedTestSupport
import Testing

/// The DigiLocker step's round trip through the application and its simulator, on both stores.
/// The token and document calls go out through URLSession to the same application served on
/// loopback, so the provider client, the simulator and the callback are all the real code.
@Suite struct DigiLockerTests {
    static let callback = "https://verify.example.com/journey/digilocker/callback"

    /// Hands requests to a responder set after the server started (the app needs the port first).
    final class Forwarder: HTTPResponder, @unchecked Sendable {  // `target` only under `lock`
        private let lock = NSLock()
        private var target: (any HTTPResponder)?
        func set(_ responder: any HTTPResponder) { lock.lock(); target = responder; lock.unlock() }
        func respond(to request: Request, context: RequestContext) throws -> Reply {
            lock.lock()
            let responder = target
            lock.unlock()
            guard let responder else { return .ready(Response(status: 503)) }
            return try responder.respond(to: request, context: context)
        }
    }

    /// A signed-in journey on a workflow with a profile step and a DigiLocker step asking for
    /// `documents`, with the simulator reachable on loopback.
    struct Fixture: JourneyFixture {
        let app: TestApplication
        let server: HTTPServer
        let clock: ManualClock
        let auth: [(String, String)]
        let id: String
        let cookie: String

        init(_ store: Store, documents: [String] = ["aadhaar", "pan", "driving_license"], devMode: Bool = true,
             apiURL: String? = nil, log: any ServerLog = SilentLog()) throws {
            let forwarder = Forwarder()
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 4), responder: forwarder, log: log)
            try server.start()
            let loopback = "http://127.0.0.1:\(server.port)/sim/digilocker"
            let clock = ManualClock(Date())
            self.clock = clock
            app = try TestApplication(store: store, clock: clock) { configuration in
                configuration.devMode = devMode
                configuration.digiLocker.tokenURL = URL(string: loopback + "/token")
                configuration.digiLocker.apiURL = URL(string: apiURL ?? loopback + "/api")
            }
            forwarder.set(app.application.responder)
            let created = try app.application.accounts.createAccount(name: "Acme")
            auth = [("Authorization", "Bearer \(created.secret.value)")]
            let list = documents.map { "\"\($0)\"" }.joined(separator: ",")
            _ = app.request("POST", "/v1/workflows", headers: auth, body: """
                {"key":"kyc","name":"KYC","steps":[{"type":"digilocker","documents":[\(list)]},{"type":"profile"}]}
                """)
            id = app.json(app.request("POST", "/v1/verifications", headers: auth,
                                      body: #"{"user_id":"u1","workflow":"kyc","mobile":"+919876543210"}"#))["id"] as? String ?? ""
            cookie = app.journeySession(verificationID: id, auth: auth)
        }

        var verificationID: String { id }
        var journeySession: String? { cookie }

        func start(body: String = #"{"step":"digilocker"}"#) -> Response {
            journey("POST", "/api/digilocker/start", body: body)
        }

        /// Starts a round trip: the consent URL's query and this browser's nonce.
        func begin(body: String = #"{"step":"digilocker"}"#) throws -> (query: [String: String], nonce: String) {
            let started = start(body: body)
            #expect(started.status == 200)
            let url = try #require(app.json(started)["authorize_url"] as? String)
            let nonce = try #require(started.cookie("hosted_digilocker"))
            return (Self.query(url), nonce)
        }

        /// The simulator's consent form answered: where it sends the browser.
        func consent(_ query: [String: String], decision: String) -> String {
            var fields = query.map { ($0.key, $0.value) }
            fields.append(("decision", decision))
            let answered = app.request("POST", "/sim/digilocker/authorize", body: FormURLEncoded.encode(fields))
            #expect(answered.status == 303)
            return answered.headers["Location"] ?? ""
        }

        /// The provider's redirect arriving, with or without this browser's nonce cookie.
        func callback(_ location: String, nonce: String?) -> Response {
            let path = String(location.dropFirst(TestApplication.origin.count))
            let pending = app.reply("GET", path, headers: nonce.map { [("Cookie", "hosted_digilocker=\($0)")] } ?? [])
            // The callback answers later, from its own queue, as the server would send it.
            guard let deferred = pending.deferred else { return Response(status: 598) }
            let answer = Answer()
            deferred.start { answer.set($0) }
            return answer.wait(seconds: 30) ?? Response(status: 597)
        }

        static func query(_ url: String) -> [String: String] {
            var result: [String: String] = [:]
            for item in URLComponents(string: url)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
            return result
        }

        func step() -> [String: Any] {
            let verification = json(get("/v1/verifications/\(id)"))
            return (verification["steps"] as? [[String: Any]])?.first { $0["id"] as? String == "digilocker" } ?? [:]
        }

        func artifactCount() throws -> Int {
            Int(try app.application.database.query("SELECT count(*) AS n FROM artifacts")[0].int("n"))
        }

        func close() {
            server.shutdown(gracePeriod: 1)
            app.close()
        }
    }

    /// The access lines the server wrote.
    final class AccessLines: ServerLog, @unchecked Sendable {  // `paths` only under `lock`
        private let lock = NSLock()
        private var written: [String] = []
        func access(_ entry: AccessLogEntry) { lock.lock(); written.append(entry.path); lock.unlock() }
        func error(_ message: String, requestID: String?) {}
        var paths: [String] { lock.lock(); defer { lock.unlock() }; return written }
    }

    /// Dev mode's simulator serves each document at a path that ends in its number: the access
    /// log shows the route there, never the PAN or the driving licence number.
    @Test func roundTrip_accessLogShowsNoDocumentNumber() throws {
        let log = AccessLines()
        let f = try Fixture(.sqlite, log: log)
        defer { f.close() }
        let (query, nonce) = try f.begin()
        #expect(f.callback(f.consent(query, decision: "allow"), nonce: nonce).status == 303)
        #expect(f.step()["status"] as? String == "completed")
        let paths = log.paths
        #expect(paths.filter { $0 == "/sim/digilocker/api/1/xml/{uri}" }.count == 2, "\(paths)")
        for number in ["ABCPV1234K", "MH0220190012345"] {
            #expect(!paths.contains { $0.contains(number) }, "\(number) in the access log")
        }
    }

    @Test(arguments: Store.allCases)
    func roundTrip_allow_completesTheStepWithMaskedDocuments(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (query, nonce) = try f.begin()
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == "hosted-dev")
        #expect(query["redirect_uri"] == Self.callback)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"]?.utf8.count == 43)
        #expect(BearerSecret(presented: query["state"] ?? "") != nil)
        let started = f.start()
        let cookie = try #require(started.headers.all("Set-Cookie").first { $0.hasPrefix("hosted_digilocker=") })
        #expect(cookie.contains("Path=/journey/digilocker/callback") && cookie.contains("HttpOnly")
                && cookie.contains("SameSite=Lax") && cookie.contains("Secure"))

        let page = f.app.request("GET", "/sim/digilocker/authorize?" + FormURLEncoded.encode(query.map { ($0.key, $0.value) }))
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"data-testid="consent-allow""#))

        let location = f.consent(query, decision: "allow")
        #expect(location.hasPrefix(Self.callback + "?code="))
        let back = f.callback(location, nonce: nonce)
        #expect(back.status == 303)
        #expect(back.headers["Location"] == "\(TestApplication.origin)/j/\(f.id)")
        #expect(back.headers.all("Set-Cookie").contains { $0.hasPrefix("hosted_digilocker=;") && $0.contains("Max-Age=0") })

        let step = f.step()
        #expect(step["status"] as? String == "completed")
        let artifacts = try #require(step["artifacts"] as? [String])
        #expect(artifacts.count == 3)
        var documents: [String: [String: Any]] = [:]
        for artifact in artifacts {
            let response = f.get("/v1/verifications/\(f.id)/artifacts/\(artifact)")
            #expect(response.status == 200)
            // What is kept is the masked document (sealed in the store: read back through the API).
            #expect(!response.body.contains(text: "999941057058") && !response.body.contains(text: "ABCPV1234K"))
            #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
            let json = f.app.json(response)
            documents[json["document"] as? String ?? "?"] = json
        }
        #expect(documents["aadhaar"]?["number_masked"] as? String == "XXXX XXXX 7058")
        #expect(documents["aadhaar"]?["name"] as? String == "Asha Verma")
        #expect(documents["aadhaar"]?["date_of_birth"] as? String == "1990-08-15")
        #expect(documents["aadhaar"]?["issuer"] as? String == "UIDAI")
        #expect(documents["pan"]?["number_masked"] as? String == "XXXXXX234K")
        #expect(documents["pan"]?["date_of_birth"] as? String == "1990-08-15")
        #expect(documents["driving_license"]?["number_masked"] as? String == "XXXXXXXXXXX2345")
        // The full numbers are nowhere in the store: not in the verification, not in any byte kept.
        let found = try f.app.application.database.query(
            "SELECT count(*) AS n FROM verifications WHERE steps LIKE \("%999941057058%") OR steps LIKE \("%ABCPV1234K%")")[0].int("n")
        #expect(found == 0, "full document number stored in the verification")
        let stored = try f.app.storedBytes()
        #expect(!stored.contains(text: "999941057058") && !stored.contains(text: "ABCPV1234K") && !stored.contains(text: "Asha Verma"))
        // Done: starting again is refused.
        #expect(f.start().status == 409)
    }

    @Test(arguments: Store.allCases)
    func callback_deny_returnsToThePendingStepToRetry(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (query, nonce) = try f.begin()
        let location = f.consent(query, decision: "deny")
        #expect(location.contains("error=access_denied"))
        let back = f.callback(location, nonce: nonce)
        #expect(back.status == 303)
        #expect(back.headers["Location"] == "\(TestApplication.origin)/j/\(f.id)?digilocker=denied")
        #expect(f.step()["status"] as? String == "pending")
        #expect(try f.artifactCount() == 0)
        // The retry works; a page in Hindi comes back in Hindi.
        #expect(f.start(body: #"{"step":"digilocker","lang":"xx"}"#).status == 422)
        let (again, secondNonce) = try f.begin(body: #"{"step":"digilocker","lang":"hi"}"#)
        #expect(f.callback(f.consent(again, decision: "allow"), nonce: secondNonce).headers["Location"] == "\(TestApplication.origin)/j/\(f.id)?lang=hi")
        #expect(f.step()["status"] as? String == "completed")
    }

    @Test(arguments: Store.allCases)
    func start_refusesWrongStepsAndClosedVerifications(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.start(body: #"{"step":"profile"}"#).status == 404)
        #expect(f.start(body: #"{"step":"nope"}"#).status == 404)
        #expect(f.start(body: #"{"step":7}"#).status == 422)
        #expect(f.start(body: "").status == 200)  // the first pending DigiLocker step
        let noOrigin = f.journey("POST", "/api/digilocker/start", origin: nil)
        #expect(noOrigin.status == 403)
        let noSession = f.app.journey("POST", f.id, "/api/digilocker/start")
        #expect(noSession.status == 401)
        // Ten starts at once (one above), then one a minute: each start stores a state.
        for _ in 0..<9 { #expect(f.start().status == 200) }
        let limited = f.start()
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
        f.clock.advance(by: 60)
        #expect(f.start().status == 200)
        _ = f.post("/v1/verifications/\(f.id)/cancel", "")
        #expect(f.start().status == 401)  // canceling ended the session
    }

    @Test(arguments: Store.allCases)
    func start_503_whenDigiLockerIsNotConfigured(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, devMode: false)
        defer { f.close() }
        let started = f.start()
        #expect(started.status == 503)
        #expect(f.app.json(started)["code"] as? String == "digilocker_unavailable")
        // The simulator is served for test mode, but without dev mode it grants consent only to a
        // test verification's round trip: a made-up state is refused.
        let refused = f.app.request("GET", "/sim/digilocker/authorize?response_type=code&client_id=hosted-dev&state=made-up"
                                    + "&code_challenge_method=S256&code_challenge=" + String(repeating: "A", count: 43)
                                    + "&redirect_uri=https%3A%2F%2Fverify.example.com%2Fjourney%2Fdigilocker%2Fcallback")
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("only test verifications"))
    }

    @Test(arguments: Store.allCases)
    func simulatorToken_refusesWrongVerifierReusedCodeAndWrongClient(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        func code() -> String {
            let location = f.consent(["response_type": "code", "client_id": "hosted-dev", "redirect_uri": Self.callback,
                                      "state": "s", "code_challenge": PKCE.challenge(for: verifier), "code_challenge_method": "S256"],
                                     decision: "allow")
            return Fixture.query(location)["code"] ?? ""
        }
        func token(_ code: String, verifier: String, secret: String = "hosted-dev-simulator-secret") -> Response {
            f.app.request("POST", "/sim/digilocker/token", body: FormURLEncoded.encode([
                ("grant_type", "authorization_code"), ("code", code), ("client_id", "hosted-dev"), ("client_secret", secret),
                ("redirect_uri", Self.callback), ("code_verifier", verifier),
            ]))
        }
        let first = code()
        let wrong = token(first, verifier: "eBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(wrong.status == 400)
        #expect(f.app.json(wrong)["error"] as? String == "invalid_grant")
        #expect(token(first, verifier: verifier).status == 400)  // burnt by the wrong try

        let second = code()
        #expect(token(second, verifier: verifier, secret: "not-the-secret").status == 401)
        let granted = token(second, verifier: verifier)
        #expect(granted.status == 200)
        let accessToken = try #require(f.app.json(granted)["access_token"] as? String)
        let reused = token(second, verifier: verifier)
        #expect(reused.status == 400)
        #expect(f.app.json(reused)["error"] as? String == "invalid_grant")

        #expect(f.app.request("GET", "/sim/digilocker/api/3/xml/eaadhaar").status == 401)
        let xml = f.app.request("GET", "/sim/digilocker/api/3/xml/eaadhaar", headers: [("Authorization", "Bearer \(accessToken)")])
        #expect(xml.status == 200)
        #expect(String(decoding: xml.body, as: UTF8.self).contains("<UidData"))
        // A consent request for another redirect URI or without PKCE is refused outright.
        #expect(f.app.request("GET", "/sim/digilocker/authorize?response_type=code&client_id=hosted-dev&state=s"
                              + "&redirect_uri=https%3A%2F%2Fevil.example%2Fcb&code_challenge_method=S256"
                              + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM").status == 400)
        #expect(f.app.request("GET", "/sim/digilocker/authorize?response_type=code&client_id=hosted-dev&state=s"
                              + "&redirect_uri=\(Self.callback)").status == 400)
    }

    @Test(arguments: Store.allCases)
    func consumeState_parallelCallbacks_exactlyOneWins(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let states = DigiLockerStore(database: f.app.application.database)
        let id = try #require(ObjectID(.verification, parsing: f.id))
        let now = f.clock.now()
        try states.insertState(stateHash: "h", verificationID: id, stepID: "digilocker", nonceHash: "n", language: nil, at: now,
                               expiresAt: now.addingTimeInterval(600))
        let winners = Counter()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            if (try? states.consumeState(stateHash: "h", nonceHash: "n", at: now)) != nil { winners.increment() }
        }
        #expect(winners.value == 1)
        #expect(try states.consumeState(stateHash: "h", nonceHash: "n", at: now) == nil)
    }
}
