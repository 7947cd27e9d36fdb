import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage

/// Wrappers of the customer-API handlers, inside `APIKeyAuthentication`: the handler gets the
/// authenticated account, and for POSTs the `Idempotency-Key` protocol runs around it (replay,
/// 422 on a different body, 409 while in flight).
struct APIGuards: Sendable {
    let idempotency: IdempotencyStore
    let clock: any WallClock

    typealias Handler = @Sendable (Request, RequestContext, Account) throws -> Response

    /// Runs `handler` with the account `APIKeyAuthentication` put into the context.
    func authenticated(_ handler: @escaping Handler) -> RouteHandler {
        { request, context in try handler(request, context, try context.account()) }
    }

    /// How a route whose response carries a secret is replayed: the stored record holds no
    /// secret (`record` makes it from the first response), and a replay builds a fresh answer
    /// from it (`replay`), since the secret exists nowhere to be replayed from.
    struct SecretReplay: Sendable {
        let record: @Sendable (Response) -> [UInt8]
        let replay: @Sendable (_ record: [UInt8], Tenancy) throws -> Response
    }

    /// Authenticates, then applies the `Idempotency-Key` protocol around `handler`.
    func idempotent(secret: SecretReplay? = nil, _ handler: @escaping Handler) -> RouteHandler {
        authenticated { request, context, account in
            guard let key = request.headers["Idempotency-Key"] else { return try handler(request, context, account) }
            guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                throw DomainError.malformed(detail: "The Idempotency-Key header must be 1 to 255 visible ASCII characters.",
                                            errors: [FieldError(field: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters")])
            }
            let hash = Digest.hex(Digest.sha256(Array("\(request.method) \(request.path)\n".utf8) + request.body))
            // A test key's Idempotency-Keys are a namespace apart from a live key's.
            let scoped = try context.tenancy().livemode ? key : "test:" + key
            switch try idempotency.claim(accountID: account.id, key: scoped, requestHash: hash, at: clock.now()) {
            case .replay(let status, let contentType, let body):
                if let secret {
                    var replayed = try secret.replay(body, try context.tenancy())
                    replayed.headers.add("Idempotent-Replayed", "true")
                    return replayed
                }
                return Response(status: status, headers: HTTPHeaders([("Content-Type", contentType), ("Idempotent-Replayed", "true")]),
                                body: body)
            case .inFlight:
                throw DomainError.conflict(detail: "A request with this Idempotency-Key is still being processed. Retry shortly.",
                                           code: .idempotencyKeyInUse, retryAfterSeconds: 1)
            case .mismatch:
                throw DomainError.invalidRequest(detail: "This Idempotency-Key was used with a different request.",
                                                 code: .idempotencyKeyReused)
            case .claimed:
                let response: Response
                do {
                    response = try handler(request, context, account)
                } catch {
                    // Nothing was stored: free the key so a corrected retry can use it.
                    try? idempotency.release(accountID: account.id, key: scoped)
                    throw error
                }
                if (200..<300).contains(response.status) {
                    try idempotency.complete(accountID: account.id, key: scoped, status: response.status,
                                             contentType: response.headers["Content-Type"] ?? "application/json",
                                             body: secret?.record(response) ?? response.body)
                } else {
                    try? idempotency.release(accountID: account.id, key: scoped)
                }
                return response
            }
        }
    }
}
