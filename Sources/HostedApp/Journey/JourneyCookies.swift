import Foundation
import HostedCore

/// The journey's cookies: no script reads them (`HttpOnly`), sent on top-level returns from other
/// sites (`SameSite=Lax`, set explicitly: WKWebView defaults differ, and Strict would drop them on
/// the way back from DigiLocker), `Secure` when the public URL is https.
struct JourneyCookies: Sendable {
    let publicURL: URL

    func cookie(_ name: String, value: String, path: String, maxAge: Int) -> String {
        var cookie = "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if publicURL.scheme == "https" { cookie += "; Secure" }
        return cookie
    }

    /// The one device holding a continuation proves it with this cookie (its claim token) when
    /// it matches the number or reports it.
    static let claimCookie = "hosted_claim"

    /// The claim cookie for a continuation just opened, scoped to one journey's path.
    func claim(_ verificationID: String, value: String) -> String {
        cookie(Self.claimCookie, value: value, path: "/j/\(verificationID)", maxAge: Int(ContinuationRules.lifetime))
    }

    /// The session cookie, scoped to one journey's path.
    func session(_ verificationID: String, value: String, maxAge: Int) -> String {
        cookie(JourneySessionAuthentication.cookieName, value: value, path: "/j/\(verificationID)", maxAge: maxAge)
    }
}
