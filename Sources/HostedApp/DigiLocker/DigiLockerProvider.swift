import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HostedCore
import HostedHTTP

/// DigiLocker's partner API as Hosted uses it: the consent URL, the code exchange with PKCE, and
/// the documents. Failures say which call failed and how, never a code, token or secret.
struct DigiLockerProvider: Sendable {
    let endpoints: DigiLockerEndpoints
    /// How long any one call may take before the user is sent back to retry.
    static let timeout: TimeInterval = 10

    /// Why the documents could not be fetched.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// The user's locker has no such document: worth telling them, not a retryable fault.
        var missingDocument: String?
    }

    /// The consent screen's URL, keeping any query the configured URL already has.
    func authorizeURL(state: String, challenge: String) -> String {
        let pairs = [("response_type", "code"), ("client_id", endpoints.clientID), ("redirect_uri", endpoints.redirectURI),
                     ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256")]
        let base = endpoints.authorizeURL.absoluteString
        return base + (base.contains("?") ? "&" : "?") + FormURLEncoded.encode(pairs)
    }

    /// Exchanges the authorization code for an access token.
    func exchange(code: String, verifier: String) throws -> String {
        var request = URLRequest(url: endpoints.tokenURL, timeoutInterval: Self.timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(FormURLEncoded.encode([
            ("grant_type", "authorization_code"), ("code", code), ("client_id", endpoints.clientID),
            ("client_secret", endpoints.clientSecret), ("redirect_uri", endpoints.redirectURI), ("code_verifier", verifier),
        ]).utf8)
        let reply = try call(request, "token exchange", maximumBytes: 64 * 1024)
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
              let token = object["access_token"] as? String, !token.isEmpty
        else { throw Failure(description: "token exchange: no access_token in the reply") }
        return token
    }

    /// The raw XML of one requested document.
    func fetch(_ document: String, token: String) throws -> [UInt8] {
        if document == "aadhaar" {
            return try get("3/xml/eaadhaar", token: token, what: "e-Aadhaar").body
        }
        let listing = try get("2/files/issued", token: token, what: "issued documents")
        guard let object = try? JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any],
              let items = object["items"] as? [[String: Any]]
        else { throw Failure(description: "issued documents: unreadable reply") }
        let doctype = Self.doctypes[document] ?? ""
        guard let uri = items.first(where: { ($0["doctype"] as? String) == doctype })?["uri"] as? String else {
            throw Failure(description: "no \(doctype) in the user's issued documents", missingDocument: document)
        }
        guard let escaped = uri.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) else {
            throw Failure(description: "issued documents: unusable uri")
        }
        return try get("1/xml/" + escaped, token: token, what: doctype).body
    }

    /// DigiLocker's document types for the workflow's document names.
    static let doctypes = ["pan": "PANCR", "driving_license": "DRVLC"]

    private func get(_ path: String, token: String, what: String) throws -> OutboundHTTP.Reply {
        guard let url = URL(string: endpoints.apiURL.absoluteString + "/" + path) else { throw Failure(description: "\(what): bad URL") }
        var request = URLRequest(url: url, timeoutInterval: Self.timeout)
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        return try call(request, what, maximumBytes: DigiLockerDocument.maximumBytes)
    }

    private func call(_ request: URLRequest, _ what: String, maximumBytes: Int) throws -> OutboundHTTP.Reply {
        let reply: OutboundHTTP.Reply
        do {
            reply = try OutboundHTTP.send(request, maximumBytes: maximumBytes)
        } catch {
            throw Failure(description: "\(what): \(error)")
        }
        guard (200..<300).contains(reply.status) else { throw Failure(description: "\(what): HTTP \(reply.status)") }
        guard !reply.truncated else { throw Failure(description: "\(what): reply larger than \(maximumBytes) bytes") }
        return reply
    }
}
