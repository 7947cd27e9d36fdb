import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedStorage
import HostedTestSupport
import Testing

/// Operators signing in to the console: lockout after five checks, a code and a setup link used
/// once, sessions that end, attempts limited per address.
extension ConsoleTests {
    @Test(arguments: Store.allCases)
    func parallelWrongPasswordsLockAfterFiveChecks(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        try f.activeOperator("ana@acme.example")
        f.clock.advance(by: 30)
        let code = TOTPCodes.code(seed: f.seeds["ana@acme.example"]!, counter: TOTP.counter(at: f.clock.now()))
        let answers = Collected<Response>()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            answers.append(f.app.console("POST", "/console/api/session", body: #"{"email":"ana@acme.example","password":"wrong password \#(index)","code":"\#(code)"}"#))
        }
        #expect(answers.all.allSatisfy { $0.status == 401 })
        // The same answer whatever failed: the body of a wrong password equals an unknown email's.
        let unknown = f.app.console("POST", "/console/api/session", body: #"{"email":"nobody@acme.example","password":"x","code":"000000"}"#)
        #expect(answers.all.allSatisfy { $0.body == unknown.body })
        // Only five attempts were ever checked (the store numbered them atomically)…
        let failures = try f.app.application.database.query(
            "SELECT COUNT(*) AS n FROM operator_events WHERE type = 'operator.sign_in_failed'").first?.int("n")
        #expect(failures == 5)
        // …and now even the right password and code are refused, with the same answer.
        f.clock.advance(by: 30)
        let right = TOTPCodes.code(seed: f.seeds["ana@acme.example"]!, counter: TOTP.counter(at: f.clock.now()))
        let locked = f.app.console("POST", "/console/api/session", body: #"{"email":"ana@acme.example","password":"\#(Self.password)","code":"\#(right)"}"#)
        #expect(locked.status == 401)
        #expect(locked.body == unknown.body)
        // Fifteen minutes later the lock is over.
        #expect(f.signIn("ana@acme.example") == nil)
        f.clock.advance(by: 15 * 60)
        #expect(f.signIn("ana@acme.example") != nil)
    }

    @Test(arguments: Store.allCases)
    func aCodeWorksOnceAndSetupLinksOnce(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (_, url) = try f.app.application.console.create(accountID: f.accountID, email: "ana@acme.example", role: .reviewer)
        let token = String(url.split(separator: "=").last ?? "")
        #expect(url.hasPrefix("https://verify.example.com/console/setup#token="))
        let first = f.json(f.app.console("POST", "/console/api/setup", body: #"{"token":"\#(token)"}"#))
        // A reload shows the same seed; the QR code is an SVG of the otpauth URI.
        #expect(f.json(f.app.console("POST", "/console/api/setup", body: #"{"token":"\#(token)"}"#))["secret"] as? String == first["secret"] as? String)
        #expect((first["qr_svg"] as? String)?.hasPrefix("<svg") == true)
        #expect((first["otpauth_uri"] as? String)?.hasPrefix("otpauth://totp/Hosted:ana@acme.example?secret=") == true)
        let seed = Self.base32(first["secret"] as? String ?? "")
        let code = TOTPCodes.code(seed: seed, counter: TOTP.counter(at: f.clock.now()))
        let weak = f.app.console("POST", "/console/api/setup/complete", body: #"{"token":"\#(token)","password":"password1234","code":"\#(code)"}"#)
        #expect(f.code(weak) == "password_not_allowed")
        let wrongCode = f.app.console("POST", "/console/api/setup/complete", body: #"{"token":"\#(token)","password":"\#(Self.password)","code":"000000"}"#)
        #expect(f.code(wrongCode) == (code == "000000" ? nil : "code_invalid"))
        // Parallel completions of one link: exactly one wins.
        let statuses = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            statuses.append(f.app.console("POST", "/console/api/setup/complete", body: #"{"token":"\#(token)","password":"\#(Self.password)","code":"\#(code)"}"#).status)
        }
        #expect(statuses.all.filter { $0 == 200 }.count == 1)
        #expect(statuses.all.filter { $0 == 404 }.count == 7)
        #expect(f.code(f.app.console("POST", "/console/api/setup", body: #"{"token":"\#(token)"}"#)) == "setup_link_invalid")
        // The setup code's own step cannot sign in; the next step's code signs in once only.
        f.seeds["ana@acme.example"] = seed
        let sameStep = f.app.console("POST", "/console/api/session", body: #"{"email":"ana@acme.example","password":"\#(Self.password)","code":"\#(code)"}"#)
        #expect(sameStep.status == 401)
        f.clock.advance(by: 30)
        let next = TOTPCodes.code(seed: seed, counter: TOTP.counter(at: f.clock.now()))
        let body = #"{"email":"ana@acme.example","password":"\#(Self.password)","code":"\#(next)"}"#
        #expect(f.app.console("POST", "/console/api/session", body: body).status == 200)
        #expect(f.app.console("POST", "/console/api/session", body: body).status == 401)
        // The seed and the password are nowhere in clear; the setup secret nowhere at all.
        let stored = (try f.app.storedBytes())
        #expect(!stored.contains(text: first["secret"] as? String ?? "-"))
        #expect(!stored.contains(text: Self.password))
        #expect(!stored.contains(text: token))
    }

    @Test(arguments: Store.allCases)
    func sessionsEndWhenIdleAtTwelveHoursAndWhenDisabled(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let id = try f.activeOperator("ana@acme.example")
        var cookie = try #require(f.signIn("ana@acme.example"))
        f.clock.advance(by: 29 * 60)
        #expect(f.app.console("GET", "/console/api/me", cookie: cookie).status == 200)
        f.clock.advance(by: 29 * 60)
        #expect(f.app.console("GET", "/console/api/me", cookie: cookie).status == 200)  // each request restarts the idle clock
        f.clock.advance(by: 31 * 60)
        #expect(f.code(f.app.console("GET", "/console/api/me", cookie: cookie)) == "console_signin_required")

        cookie = try #require(f.signIn("ana@acme.example"))
        for _ in 0..<25 {
            f.clock.advance(by: 29 * 60)
            _ = f.app.console("GET", "/console/api/me", cookie: cookie)
        }
        #expect(f.app.console("GET", "/console/api/me", cookie: cookie).status == 401)  // past 12 hours, active or not

        cookie = try #require(f.signIn("ana@acme.example"))
        #expect(f.app.console("GET", "/console/api/me", cookie: cookie).status == 200)
        _ = try f.app.application.console.disable(id: ObjectID(.operator, parsing: id)!)
        #expect(f.app.console("GET", "/console/api/me", cookie: cookie).status == 401)
        #expect(f.signIn("ana@acme.example") == nil)
        // Sign-out ends the session.
        try f.activeOperator("ravi@acme.example")
        let ravi = try #require(f.signIn("ravi@acme.example"))
        #expect(f.app.console("POST", "/console/api/signout", cookie: ravi).status == 204)
        #expect(f.app.console("GET", "/console/api/me", cookie: ravi).status == 401)
    }

    @Test(arguments: Store.allCases)
    func signInAttemptsAreLimitedPerAddressAndEndedSessionsArePruned(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let statuses = (0..<22).map { index in
            f.app.console("POST", "/console/api/session", body: #"{"email":"nobody\#(index)@acme.example","password":"x","code":"000000"}"#).status
        }
        #expect(statuses.prefix(20).allSatisfy { $0 == 401 })
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
        f.clock.advance(by: 15 * 60)
        try f.activeOperator("ana@acme.example")
        #expect(f.signIn("ana@acme.example") != nil)
        let count: () throws -> Int64? = { try f.app.application.database.query("SELECT COUNT(*) AS n FROM console_sessions").first?.int("n") }
        #expect(try count() == 1)
        f.clock.advance(by: 14 * 3600)
        f.app.application.runBackgroundWork()
        #expect(try count() == 0)
    }
}
