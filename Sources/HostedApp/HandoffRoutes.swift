import Foundation
import HostedCore
import HostedHTTP

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

    func register(in routes: inout Router.Builder) {
        routes.add("POST", "/v1/verifications/{id}/handoffs", guards.idempotent { request, context, account in
            let id = try VerificationRoutes.id(context)
            var body = try JSONObject(body: request.body)
            let returnURL = body.string("return_url")
            let expiresIn = body.int("expires_in_seconds")
            try body.finish()
            let (handoff, url) = try signIn.mintHandoff(accountID: account.id, verificationID: id, returnURL: returnURL, expiresIn: expiresIn)
            return try .json(HandoffBody(id: handoff.id.rawValue, url: url, expires_at: APIObjects.timestamp(handoff.expiresAt),
                                         expires_in_seconds: Int(handoff.expiresAt.timeIntervalSince(handoff.createdAt)),
                                         verification_id: id.rawValue), status: 201)
        })
    }
}
