import Foundation
import HostedApp
import HostedHTTP
import HostedTestSupport
import Testing

/// Who a body is held for, as the header phase names it for the server's body budget: one
/// holder per verification (all its sessions) and per account (all its keys).
@Suite struct BodyHolderTests {
    /// The holder the header phase of a request with a body names (nil: none).
    func holder(_ app: TestApplication, _ method: String, _ path: String, headers: [(String, String)]) -> String? {
        let request = Request(method: method, path: path, headers: HTTPHeaders(headers + [("Content-Length", "1000")]))
        var context = RequestContext(requestID: "test")
        guard (try? app.application.responder.admit(request, context: &context)) != nil else { return nil }
        return context[BodyHolder.self]
    }

    @Test(arguments: Store.allCases)
    func uploads_nameTheirVerification_andAPICalls_theirAccount(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try HardeningTests.Fixture(store)
        defer { f.close() }
        let upload = "/j/\(f.verificationID)/api/steps/selfie/images"
        // Two sign-ins to one verification are one holder.
        let first = f.app.journeySession(verificationID: f.verificationID, auth: f.auth)
        let second = f.app.journeySession(verificationID: f.verificationID, auth: f.auth)
        #expect(!first.isEmpty && first != second)
        let byFirst = holder(f.app, "POST", upload, headers: [("Origin", TestApplication.origin), ("Cookie", "hosted_session=\(first)")])
        let bySecond = holder(f.app, "POST", upload, headers: [("Origin", TestApplication.origin), ("Cookie", "hosted_session=\(second)")])
        #expect(byFirst != nil)
        #expect(byFirst == bySecond)
        #expect(byFirst?.contains(f.verificationID) == true)
        // Not a secret: the session token is nowhere in it.
        #expect(byFirst?.contains(first) == false)
        // The customer API's caller is its account.
        let byKey = holder(f.app, "POST", "/v1/verifications", headers: f.auth)
        #expect(byKey?.hasPrefix("account ") == true)
        #expect(byKey?.contains("sk_") == false)
        // A call nobody signed in to names none: only its address counts.
        #expect(holder(f.app, "POST", "/j/\(f.verificationID)/api/otp", headers: [("Origin", TestApplication.origin)]) == nil)
    }
}
