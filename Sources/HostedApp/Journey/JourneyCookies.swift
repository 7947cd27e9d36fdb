import Foundation

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

    /// The session cookie, scoped to one journey's path.
    func session(_ verificationID: String, value: String, maxAge: Int) -> String {
        cookie(JourneySessionAuthentication.cookieName, value: value, path: "/j/\(verificationID)", maxAge: maxAge)
    }
}
