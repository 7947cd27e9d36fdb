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

    func create(tenancy: Tenancy, url: String, events: EventFilter, description: String?) throws -> (WebhookEndpoint, secret: String) {
        _ = try target(url)
        let endpoint = WebhookEndpoint(id: ObjectID(.webhookEndpoint, using: random), accountID: tenancy.accountID, url: url, events: events,
                                       description: description, status: .enabled, disabledReason: nil, createdAt: clock.now(),
                                       livemode: tenancy.livemode)
        let secret = WebhookSignature.newSecret(using: random)
        guard try store.create(endpoint, sealedSecret: try seal(secret, endpointID: endpoint.id), limit: WebhookEndpoint.perAccountLimit) else {
            throw DomainError.conflict(
                detail: "The account already has \(WebhookEndpoint.perAccountLimit) webhook endpoints in this mode, the most it may have; delete one to make room.",
                code: .webhookEndpointLimitReached)
        }
        return (endpoint, secret)
    }

    func rotate(tenancy: Tenancy, id: ObjectID) throws -> (WebhookEndpoint, secret: String) {
        let now = clock.now()
        let secret = WebhookSignature.newSecret(using: random)
        guard try store.rotate(tenancy: tenancy, id: id, sealedSecret: try seal(secret, endpointID: id), at: now,
                               previousUntil: now.addingTimeInterval(WebhookEndpoint.rotationOverlap)),
              let endpoint = try store.endpoint(tenancy: tenancy, id: id)
        else { throw DomainError.notFound(what: "webhook endpoint") }
        return (endpoint, secret)
    }

    /// Queues a `webhook.test` message to the endpoint, due now; returns its event id.
    func sendTest(tenancy: Tenancy, id: ObjectID) throws -> ObjectID {
        guard let endpoint = try store.endpoint(tenancy: tenancy, id: id) else { throw DomainError.notFound(what: "webhook endpoint") }
        guard endpoint.status == .enabled else {
            throw DomainError.conflict(detail: "The webhook endpoint is disabled; enable it to send a test.", code: .webhookEndpointDisabled)
        }
        let now = clock.now()
        let eventID = ObjectID(.event, using: random)
        try store.enqueue(endpointID: id, accountID: tenancy.accountID, eventID: eventID, type: WebhookMessage.testType,
                          payload: WebhookMessage.testBody(eventID: eventID, at: now, livemode: tenancy.livemode), at: now)
        return eventID
    }

    func recover(tenancy: Tenancy, id: ObjectID, since: Date) throws -> Int {
        try store.recover(tenancy: tenancy, endpointID: id, since: since, at: clock.now()) { event, status in
            WebhookMessage.body(for: event, status: status)
        }
    }

    // MARK: Endpoints as the API shows them

    func endpoint(tenancy: Tenancy, id: ObjectID) throws -> WebhookEndpoint {
        guard let endpoint = try store.endpoint(tenancy: tenancy, id: id) else { throw DomainError.notFound(what: "webhook endpoint") }
        return endpoint
    }

    func list(tenancy: Tenancy, page: ListParameters) throws -> (endpoints: [WebhookEndpoint], hasMore: Bool) {
        do {
            return try store.list(tenancy: tenancy, limit: page.limit, startingAfter: page.startingAfter)
        } catch is WebhookStore.UnknownCursor {
            throw Self.unknownCursor("webhook endpoint")
        }
    }

    /// What a `PATCH` changes (nil: left as it is). A new URL is checked like a new endpoint's.
    struct Change {
        var url: String?
        var events: EventFilter?
        /// Empty: the description is removed.
        var description: String?
        var status: WebhookEndpoint.Status?
    }

    func update(tenancy: Tenancy, id: ObjectID, _ change: Change) throws -> WebhookEndpoint {
        if let url = change.url { _ = try target(url) }
        return try store.update(tenancy: tenancy, id: id, at: clock.now()) { endpoint in
            if let url = change.url { endpoint.url = url }
            if let filter = change.events { endpoint.events = filter }
            if let description = change.description { endpoint.description = description.isEmpty ? nil : description }
            if let status = change.status, status != endpoint.status {
                endpoint.status = status
                endpoint.disabledReason = status == .disabled ? .manual : nil
            }
        }
    }

    func delete(tenancy: Tenancy, id: ObjectID) throws {
        guard try store.delete(tenancy: tenancy, id: id) else { throw DomainError.notFound(what: "webhook endpoint") }
    }

    /// One page of an endpoint's delivery attempts, newest first; `startingAfter` a delivery id.
    func deliveries(tenancy: Tenancy, endpointID: ObjectID, limit: Int,
                    startingAfter: String?) throws -> (deliveries: [WebhookStore.Delivery], hasMore: Bool) {
        do {
            return try store.deliveries(accountID: tenancy.accountID, endpointID: endpointID, limit: limit, startingAfter: startingAfter)
        } catch is WebhookStore.UnknownCursor {
            throw Self.unknownCursor("webhook delivery of this endpoint")
        }
    }

    static func unknownCursor(_ noun: String) -> DomainError {
        .invalidRequest(detail: "starting_after is not a \(noun).", errors: [FieldError(field: "starting_after", message: "no such \(noun)")])
    }

    // MARK: Deliveries, for the dispatcher

    /// Leases up to `limit` due attempts (see `WebhookStore.claim`).
    func claimDue(lease: TimeInterval, limit: Int, excluding busy: [String], perAccount: Int) throws -> [WebhookStore.Claimed] {
        try store.claim(at: clock.now(), lease: lease, limit: limit, excluding: busy, perAccount: perAccount)
    }

    /// Gives a leased attempt back, untried.
    func release(_ attempt: WebhookStore.Claimed) throws { try store.release(attempt) }

    /// Where an attempt goes now and the keys to sign it with; nil when the endpoint is gone.
    func destination(of attempt: WebhookStore.Claimed) throws -> (url: String, keys: [[UInt8]])? {
        guard let found = try store.targets(endpointIDs: [attempt.endpointID], at: clock.now())[attempt.endpointID] else { return nil }
        return (found.url, keys(found.sealedSecrets, endpointID: found.endpointID))
    }

    /// Records an attempt's outcome: a failure is retried at `schedule`'s next delay (with
    /// jitter, or the receiver's `Retry-After` after a 429 or 503); a 410 disables the endpoint.
    /// Returns whether it succeeded and the error recorded.
    func record(_ attempt: WebhookStore.Claimed, status: Int?, retryAfter: TimeInterval?, error: String?,
                durationMilliseconds: Int64, schedule: RetrySchedule) throws -> (succeeded: Bool, error: String?) {
        let now = clock.now()
        let succeeded = status.map { (200...299).contains($0) } ?? false
        var next: Date?
        var disable: WebhookEndpoint.DisabledReason?
        if !succeeded {
            if status == 410 {
                disable = .gone
            } else {
                let honoured = status == 429 || status == 503 ? retryAfter : nil
                let jitter = Double(random.bytes(4).reduce(0) { $0 << 8 | UInt32($1) }) / Double(UInt32.max)
                next = schedule.delay(afterFailedAttempt: attempt.attempt, jitter: jitter, retryAfter: honoured)
                    .map { now.addingTimeInterval($0) }
            }
        }
        let recorded = error ?? (succeeded ? nil : status.map { "HTTP \($0)" })
        let result = WebhookStore.Result(succeeded: succeeded, responseStatus: status, error: recorded,
                                         durationMilliseconds: durationMilliseconds, nextAttemptAt: next, disable: disable)
        try store.complete(attempt, result, at: now, failingLimit: WebhookEndpoint.failingLimit)
        return (succeeded, recorded)
    }

    /// Seconds since 1970 now (a message's `webhook-timestamp`).
    func timestamp() -> Int64 { Int64(clock.now().timeIntervalSince1970) }

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
