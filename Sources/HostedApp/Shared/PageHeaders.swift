import HostedHTTP

/// The security headers of the service's pages. The journey sends its own set; the error
/// boundary adds the same set to every other HTML response and to everything under `/assets/`
/// that does not bring stricter ones, so no page (a DigiLocker landing, a 404 rendered as HTML, a
/// static file) goes out without them.
enum PageHeaders {
    /// No inline script, no framing, no referrer; camera and location (premises photos that ask)
    /// for this origin only.
    static let journey: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
            + "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("Referrer-Policy", "no-referrer"),
        ("Permissions-Policy", "camera=(self), microphone=(), geolocation=(self)"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]

    /// Adds each header of `journey` that `response` does not set itself, when it is an HTML
    /// page or a file under `/assets/`.
    static func apply(to response: inout Response, path: String) {
        guard isHTML(response.headers["Content-Type"]) || path.hasPrefix("/assets/") else { return }
        for (name, value) in journey where !response.headers.contains(name) {
            response.headers.add(name, value)
        }
    }

    /// Whether a `Content-Type` names HTML (`text/html`, any letter case, any parameters), read
    /// in place: this runs for every response, most of them JSON.
    static func isHTML(_ contentType: String?) -> Bool {
        contentType?.hasCaseInsensitivePrefix("text/html") == true
    }
}
