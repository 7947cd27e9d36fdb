import Foundation
import HostedCore
import HostedHTTP

/// The console's cookie: no script reads it, never sent from another site (`SameSite=Strict`:
/// the console is never the target of a cross-site navigation that needs it), only under
/// `/console`, `Secure` when the public URL is https.
struct ConsoleCookie: Sendable {
    let publicURL: URL

    func session(_ value: String, maxAge: Int) -> String {
        var cookie = "\(ConsoleSessionAuthentication.cookieName)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        if publicURL.scheme == "https" { cookie += "; Secure" }
        return cookie
    }
}
