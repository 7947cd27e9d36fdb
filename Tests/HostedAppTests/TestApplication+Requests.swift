import Foundation
import HostedApp
import HostedHTTP

// The one set of request helpers the app tests share: the journey, the console, handoffs, and
// reading answers. The customer API's `post`/`get`/`poll` with a key are `AccountFixture`'s.
//
// They live here, not in HostedTestSupport: that target is linked by every test target (core,
// crypto, HTTP, imaging, ...), and holding these would make it, and so all of those, depend on
// HostedApp.

extension TestApplication {
    /// The origin of the journey page and the console: every test application's public URL.
    static let origin = "https://verify.example.com"

    // MARK: The journey

    /// A request to verification `id`'s journey (`/j/{id}` + `path`) as its page sends it: from
    /// `origin`, JSON unless `contentType` says otherwise, with the journey session cookie
    /// `session` and any other `cookies`. An answer given later (an upload, decoded on the
    /// decode queue) is waited for.
    func journey(_ method: String, _ id: String, _ path: String, body: [UInt8] = [], contentType: String = "application/json",
                 session: String? = nil, cookies: KeyValuePairs<String, String> = [:], origin: String? = Self.origin,
                 headers: [(String, String)] = []) -> Response {
        var sent = headers
        if let origin { sent.append(("Origin", origin)) }
        let cookie = (session.map { [("hosted_session", $0)] } ?? []) + cookies.map { ($0.key, $0.value) }
        if !cookie.isEmpty { sent.append(("Cookie", cookie.map { "\($0.0)=\($0.1)" }.joined(separator: "; "))) }
        sent.append(("Content-Type", contentType))
        let (pathOnly, query) = Self.target("/j/\(id)\(path)")
        let request = Request(method: method, path: pathOnly, query: query, headers: HTTPHeaders(sent), body: body)
        do {
            return Self.response(of: try application.responder.respond(to: request, context: RequestContext(requestID: "test")))
        } catch {
            // The error boundary must turn every error into a response.
            return Response(status: 599, body: Array("\(error)".utf8))
        }
    }

    /// `journey` with a text body.
    func journey(_ method: String, _ id: String, _ path: String, body: String, contentType: String = "application/json",
                 session: String? = nil, cookies: KeyValuePairs<String, String> = [:], origin: String? = Self.origin,
                 headers: [(String, String)] = []) -> Response {
        journey(method, id, path, body: Array(body.utf8), contentType: contentType, session: session, cookies: cookies,
                origin: origin, headers: headers)
    }

    // MARK: The console

    /// A console request as its page sends it: with the console session `cookie`; a change
    /// (anything but GET and HEAD) as JSON from `origin`.
    func console(_ method: String, _ path: String, body: String = "", cookie: String? = nil,
                 origin: String? = Self.origin) -> Response {
        var headers: [(String, String)] = []
        if method != "GET" && method != "HEAD" {
            headers.append(("Content-Type", "application/json"))
            if let origin { headers.append(("Origin", origin)) }
        }
        if let cookie { headers.append(("Cookie", "hosted_console=\(cookie)")) }
        return request(method, path, headers: headers, body: body)
    }

    // MARK: Signing in to a journey

    /// The secret of a handoff minted now for verification `id` (from its URL's fragment), or
    /// nil when none was minted.
    func handoffSecret(verificationID id: String, auth: [(String, String)]) -> String? {
        guard let url = json(request("POST", "/v1/verifications/\(id)/handoffs", headers: auth, body: "{}"))["url"] as? String,
              let fragment = url.split(separator: "#").last
        else { return nil }
        return String(fragment.dropFirst("handoff=".count))
    }

    /// Signs in to a verification's journey the way the page does (a fresh handoff exchanged
    /// from `origin`); the session cookie's value, or "" when that failed.
    func journeySession(verificationID id: String, auth: [(String, String)], origin: String = Self.origin) -> String {
        let secret = handoffSecret(verificationID: id, auth: auth) ?? ""
        return journey("POST", id, "/api/session", body: #"{"handoff":"\#(secret)"}"#, origin: origin).cookie("hosted_session") ?? ""
    }

    // MARK: Reading answers

    /// The body as a JSON object; empty when it is not one.
    func json(_ response: Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// The problem's `code`.
    func code(_ response: Response) -> String? { json(response)["code"] as? String }
}

extension Response {
    /// The value of the cookie `name` this response sets (not one it clears with `Max-Age=0`).
    func cookie(_ name: String) -> String? {
        headers.all("Set-Cookie").first { $0.hasPrefix("\(name)=") && !$0.contains("Max-Age=0") }
            .map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) }
    }
}
