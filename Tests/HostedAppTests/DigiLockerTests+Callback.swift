import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// The DigiLocker callback refusing states it cannot use, and returning the browser to the step
/// to retry when the provider or the locker lets it down.
extension DigiLockerTests {
    @Test(arguments: Store.allCases)
    func callback_rejectsMissingTamperedForeignReplayedAndExpiredStates(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (query, nonce) = try f.begin()
        let location = f.consent(query, decision: "allow")
        let state = query["state"] ?? ""

        // Missing and tampered states: a plain refusal page, nothing stored.
        #expect(f.callback("\(Self.callback)?code=x", nonce: nonce).status == 400)
        let tamperedState = String(state.dropLast()) + (state.hasSuffix("A") ? "B" : "A")
        let tampered = f.callback(location.replacingOccurrences(of: state, with: tamperedState), nonce: nonce)
        #expect(tampered.status == 400)
        #expect(String(decoding: tampered.body, as: UTF8.self).contains("not valid"))
        // A stray or forged callback leaves this browser's nonce alone, so its own round trip still works.
        #expect(tampered.headers.all("Set-Cookie").isEmpty)
        #expect(f.callback(location, nonce: nil).headers.all("Set-Cookie").isEmpty)
        // Another browser (no nonce, or another nonce): back to the journey, state left unused.
        #expect(f.callback(location, nonce: nil).headers["Location"] == "\(TestApplication.origin)/j/\(f.id)?digilocker=expired")
        #expect(f.callback(location, nonce: BearerSecret(using: SecureRandom()).value).headers["Location"]
                == "\(TestApplication.origin)/j/\(f.id)?digilocker=expired")
        #expect(try f.artifactCount() == 0)
        #expect(f.step()["status"] as? String == "pending")

        // The right browser completes it; a replay stores nothing more.
        #expect(f.callback(location, nonce: nonce).headers["Location"] == "\(TestApplication.origin)/j/\(f.id)")
        #expect(try f.artifactCount() == 3)
        let replay = f.callback(location, nonce: nonce)
        #expect(replay.status == 303)
        #expect(replay.headers["Location"] == "\(TestApplication.origin)/j/\(f.id)")
        #expect(try f.artifactCount() == 3)
    }

    @Test(arguments: Store.allCases)
    func callback_expiredState_returnsToRetryAndStoresNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store, documents: ["aadhaar"])
        defer { f.close() }
        let (query, nonce) = try f.begin()
        let location = f.consent(query, decision: "allow")
        f.clock.advance(by: 601)
        #expect(f.callback(location, nonce: nonce).headers["Location"] == "\(TestApplication.origin)/j/\(f.id)?digilocker=expired")
        #expect(try f.artifactCount() == 0)
        #expect(f.step()["status"] as? String == "pending")
    }

    @Test(arguments: Store.allCases)
    func callback_missingDocumentOrProviderDown_returnsToRetry(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        // The provider goes away between consent and callback: the token call fails.
        let (query, nonce) = try f.begin()
        let location = f.consent(query, decision: "allow")
        f.server.shutdown(gracePeriod: 1)
        #expect(f.callback(location, nonce: nonce).headers["Location"] == "\(TestApplication.origin)/j/\(f.id)?digilocker=failed")
        #expect(try f.artifactCount() == 0)
        #expect(f.step()["status"] as? String == "pending")
    }

    /// A DigiLocker whose locker holds no issued documents and whose e-Aadhaar is not XML.
    func withEmptyLocker(_ body: (String) throws -> Void) throws {
        var routes = Router.Builder()
        routes.add("GET", "/api/2/files/issued") { _, _ in .json(bytes: Array(#"{"items":[]}"#.utf8)) }
        routes.add("GET", "/api/3/xml/eaadhaar") { _, _ in Response(status: 200, body: Array("<html>maintenance".utf8)) }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), responder: routes.build(), log: SilentLog())
        try server.start()
        defer { server.shutdown(gracePeriod: 1) }
        try body("http://127.0.0.1:\(server.port)/api")
    }

    @Test(arguments: Store.allCases)
    func callback_documentNotInLockerOrUnreadable_returnsToRetry(_ store: Store) throws {
        guard store.isAvailable else { return }
        try withEmptyLocker { api in
            for (documents, setback) in [(["pan"], "missing"), (["aadhaar"], "failed")] {
                let f = try Fixture(store, documents: documents, apiURL: api)
                defer { f.close() }
                let (query, nonce) = try f.begin()
                #expect(f.callback(f.consent(query, decision: "allow"), nonce: nonce).headers["Location"]
                        == "\(TestApplication.origin)/j/\(f.id)?digilocker=\(setback)")
                #expect(try f.artifactCount() == 0)
                #expect(f.step()["status"] as? String == "pending")
            }
        }
    }
}
