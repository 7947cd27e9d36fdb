import Foundation
import HostedCore
import HostedHTTP
import HostedStorage

/// `POST /v1/verifications/{id}/handoffs`: a single-use URL that opens the journey signed in.
struct HandoffRoutes {
    let guards: APIGuards
    let signIn: SignInService

    private struct HandoffBody: Encodable {
        let object = "handoff"
        let id: String
        let url: String
        let expires_at: String?
        let expires_in_seconds: Int
        let verification_id: String
    }

    /// A retry with the same `Idempotency-Key` gets the same handoff with a fresh secret (the one
    /// it replaces stops working), so the stored response never holds a secret.
    var replay: APIGuards.SecretReplay {
        APIGuards.SecretReplay(
            record: { response in
                let id = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["id"] as? String ?? ""
                return Array((try? JSONCoding.encoder.encode(["handoff_id": id])) ?? Data())
            },
            replay: { [signIn] record, tenancy in
                let stored = (try? JSONSerialization.jsonObject(with: Data(record)) as? [String: String]) ?? [:]
                guard let id = stored["handoff_id"].flatMap({ ObjectID(.handoff, parsing: $0) }) else {
                    throw DomainError.conflict(detail: "This Idempotency-Key cannot be replayed.", code: .handoffNotReissuable)
                }
                let (handoff, url) = try signIn.reissueHandoff(tenancy: tenancy, handoffID: id)
                return try Self.response(handoff, url: url)
            })
    }

    static func response(_ handoff: Handoff, url: String) throws -> Response {
        try .json(HandoffBody(id: handoff.id.rawValue, url: url, expires_at: APIObjects.timestamp(handoff.expiresAt),
                              expires_in_seconds: Int(handoff.expiresAt.timeIntervalSince(handoff.createdAt)),
                              verification_id: handoff.verificationID.rawValue), status: 201)
    }

    func register(in routes: inout Router.Builder) {
        routes.add("POST", "/v1/verifications/{id}/handoffs", guards.idempotent(secret: replay) { request, context, _ in
            let id = try context.verificationID()
            var body = try JSONObject(body: request.body)
            let returnURL = body.string("return_url")
            let expiresIn = body.int("expires_in_seconds")
            let continuation = body.bool("continuation") ?? false
            let nonce = body.string("nonce")
            try body.finish()
            let (handoff, url) = try signIn.mintHandoff(tenancy: try context.tenancy(), verificationID: id, returnURL: returnURL, expiresIn: expiresIn,
                                                         continuation: continuation, nonce: nonce, by: try context.apiActor())
            return try Self.response(handoff, url: url)
        })
    }
}
