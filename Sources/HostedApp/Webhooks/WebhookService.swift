import Foundation
import HostedCore
import HostedCrypto
import HostedOutbound
import HostedStorage

/// Webhook endpoints as the customer manages them: the URL rules (checked again at every
/// delivery), secrets made here, shown once and stored only sealed, rotation, recovery and
/// test messages.
struct WebhookService: Sendable {
    let store: WebhookStore
    let box: SecretBox
    let policy: WebhookURLPolicy
    let resolver: any HostResolver
    let clock: any WallClock
    let random: any RandomSource

    /// `text` as a target a delivery may go to now: the URL rules, then every address its host
    /// resolves to. Throws `webhook_url_not_allowed` naming the rule.
    func target(_ text: String, field: String = "url") throws -> (WebhookURLPolicy.Target, address: [UInt8]) {
        let target = try policy.validate(text, field: field)
        func refuse(_ message: String) -> DomainError {
            .invalidRequest(detail: "The webhook URL \(message).", errors: [FieldError(field: field, message: message)],
                            code: .webhookURLNotAllowed)
        }
        switch AddressCheck.check(host: target.host, resolver: resolver, devMode: policy.devMode) {
        case .allowed(let address):
            // http only to loopback, even in dev mode.
            if target.scheme == "http", AddressPolicy.classify(address) != .loopback {
                throw refuse("must use https (http is allowed only to a loopback address in dev mode)")
            }
            return (target, address)
        case .unresolvable:
            throw refuse("has a host that does not resolve")
        case .refused(let verdict):
            throw refuse("resolves to a \(verdict.rawValue) address, which webhooks are never sent to")
        }
    }

    func create(accountID: ObjectID, url: String, events: EventFilter, description: String?) throws -> (WebhookEndpoint, secret: String) {
        _ = try target(url)
        let endpoint = WebhookEndpoint(id: ObjectID(.webhookEndpoint, using: random), accountID: accountID, url: url, events: events,
                                       description: description, status: .enabled, disabledReason: nil, createdAt: clock.now())
        let secret = WebhookSignature.newSecret(using: random)
        guard try store.create(endpoint, sealedSecret: try seal(secret, endpointID: endpoint.id), limit: WebhookEndpoint.perAccountLimit) else {
            throw DomainError.conflict(
                detail: "The account already has \(WebhookEndpoint.perAccountLimit) webhook endpoints, the most it may have; delete one to make room.",
                code: .webhookEndpointLimitReached)
        }
        return (endpoint, secret)
    }

    func rotate(accountID: ObjectID, id: ObjectID) throws -> (WebhookEndpoint, secret: String) {
        let now = clock.now()
        let secret = WebhookSignature.newSecret(using: random)
        guard try store.rotate(accountID: accountID, id: id, sealedSecret: try seal(secret, endpointID: id), at: now,
                               previousUntil: now.addingTimeInterval(WebhookEndpoint.rotationOverlap)),
              let endpoint = try store.endpoint(accountID: accountID, id: id)
        else { throw DomainError.notFound(what: "webhook endpoint") }
        return (endpoint, secret)
    }

    /// Queues a `webhook.test` message to the endpoint, due now; returns its event id.
    func sendTest(accountID: ObjectID, id: ObjectID) throws -> ObjectID {
        guard let endpoint = try store.endpoint(accountID: accountID, id: id) else { throw DomainError.notFound(what: "webhook endpoint") }
        guard endpoint.status == .enabled else {
            throw DomainError.conflict(detail: "The webhook endpoint is disabled; enable it to send a test.", code: .webhookEndpointDisabled)
        }
        let now = clock.now()
        let eventID = ObjectID(.event, using: random)
        try store.enqueue(endpointID: id, accountID: accountID, eventID: eventID, type: WebhookMessage.testType,
                          payload: WebhookMessage.testBody(eventID: eventID, at: now), at: now)
        return eventID
    }

    func recover(accountID: ObjectID, id: ObjectID, since: Date) throws -> Int {
        try store.recover(accountID: accountID, endpointID: id, since: since, at: clock.now()) { event, status in
            WebhookMessage.body(for: event, status: status)
        }
    }

    /// The signing keys a sealed secret list holds (newest first); the ones that do not open
    /// (another service key) are left out.
    func keys(_ sealed: [String], endpointID: String) -> [[UInt8]] {
        sealed.compactMap { text in
            guard let bytes = Data(base64Encoded: text),
                  let opened = box.open([UInt8](bytes), context: Self.context(endpointID))
            else { return nil }
            return WebhookSignature.key(of: String(decoding: opened, as: UTF8.self))
        }
    }

    private func seal(_ secret: String, endpointID: ObjectID) throws -> String {
        Data(try box.seal(Array(secret.utf8), context: Self.context(endpointID.rawValue), random: random.bytes(12))).base64EncodedString()
    }

    /// Binds a sealed secret to its endpoint: it cannot be moved to another row.
    static func context(_ endpointID: String) -> String { "webhook_endpoint:" + endpointID }
}
