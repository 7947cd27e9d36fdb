import Foundation
import HostedCore
import HostedCrypto
import HostedImaging
import HostedStorage

/// Continuing a journey on another device: the first device (signed in) makes a link and a
/// number; the second opens the link (one device only), picks the number among three, and gets
/// its own session; the first follows by long-poll and finishes at the return URL.
struct ContinuationService: Sendable {
    let store: ContinuationStore
    let signIn: SignInService
    let journey: JourneyService
    let verifications: VerificationStore
    /// The pinned workflow's continuation options (matching, on report).
    let workflows: WorkflowStore
    /// Whether anyone hears `continuation_requested` (then the app button shows), and under what name.
    let webhooks: WebhookStore
    let accounts: AccountStore
    let rateLimits: RateLimitStore
    /// Texts go through it (in dev mode, the outbox); unconfigured, texting is refused.
    let sender: any SMSSender
    let smsBox: SecretBox
    let publicURL: URL
    let clock: any WallClock
    let random: any RandomSource
    /// Wakes the SMS sender.
    let messageQueued: @Sendable () -> Void

    /// Texting the link: 3 per 10 minutes per verification.
    static let smsLimit = (name: "continuation-sms", interval: 200.0, burst: 3)

    struct Created: Encodable {
        let url: String
        let number: String
        let expires_at: String?
        let qr_svg: String
        /// `{"name"}` when the account's app can be asked to continue (someone hears the request).
        let app: App?
        /// How the phone will prove it sees this screen: `choose` the number or `type` it.
        let matching: String

        struct App: Encodable { let name: String }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(url, forKey: .url)
            try c.encode(number, forKey: .number)
            try c.encode(expires_at, forKey: .expires_at)
            try c.encode(qr_svg, forKey: .qr_svg)
            try c.encode(app, forKey: .app)
            try c.encode(matching, forKey: .matching)
        }

        enum CodingKeys: String, CodingKey { case url, number, expires_at, qr_svg, app, matching }
    }

    /// A new link for the signed-in verification; any earlier one not yet used stops working.
    /// `userAgent` is the computer's, kept only as its browser and OS family for the phone's
    /// "requested from". Refused for a minute after a "this wasn't me" report.
    func create(for verification: Verification, userAgent: String? = nil) throws -> Created {
        let now = clock.now()
        if let pause = try pauseAfterReport(verificationID: verification.id, at: now), pause > 0 {
            throw DomainError.rateLimited(detail: "Someone who was not you may have opened the last link. A new code can be made in a minute.",
                                          retryAfterSeconds: pause)
        }
        let secret = BearerSecret(using: random)
        let number = ContinuationRules.number(using: random)
        let expiresAt = now.addingTimeInterval(ContinuationRules.lifetime)
        _ = try verifications.update(tenancy: verification.tenancy, id: verification.id, at: now) { current, connection in
            try current.apply(.continuationCreated, at: now, by: .journey)
            try store.replace(id: ObjectID(.continuation, using: random), verificationID: current.id,
                              secretHash: Digest.sha256Hex(secret.value), number: number, origin: UserAgentSummary(userAgent: userAgent),
                              at: now, expiresAt: expiresAt, on: connection)
        }
        // From the configured public URL, never from the request's Host.
        let url = publicURL.absoluteString + "/j/" + verification.id.rawValue + "#continue=" + secret.value
        guard let svg = QRCodeImage.svg(for: url) else { throw DomainError.invalidRequest(detail: "The link could not be drawn.") }
        let app = try webhooks.hasEnabledSubscriber(tenancy: verification.tenancy, eventType: .continuationRequested)
            ? try accounts.account(verification.accountID).map { Created.App(name: $0.name) } : nil
        return Created(url: url, number: number, expires_at: APIObjects.timestamp(expiresAt), qr_svg: svg, app: app,
                       matching: try options(of: verification).matching.rawValue)
    }

    /// Whole seconds left of the pause after the newest continuation was reported; nil when it
    /// was not reported.
    func pauseAfterReport(verificationID: ObjectID, at now: Date) throws -> Int? {
        guard let current = try store.current(verificationID: verificationID), current.status == ContinuationStatus.reported.rawValue,
              let reported = current.finishedAt
        else { return nil }
        let left = reported.addingTimeInterval(ContinuationRules.pauseAfterReport).timeIntervalSince(now)
        return max(0, Int(min(left, ContinuationRules.pauseAfterReport).rounded(.up)))
    }

    /// "Continue in the app": the live link is marked, once, and `continuation_requested` (with
    /// its id only) goes to the customer's backend by webhook; pressing again sends nothing more.
    func requestApp(for verification: Verification) throws {
        let now = clock.now()
        var live = false
        _ = try verifications.update(tenancy: verification.tenancy, id: verification.id, at: now) { current, connection in
            guard current.status.isEditable else { return }
            if let id = try store.requestApp(verificationID: current.id, at: now, on: connection) {
                try current.apply(.continuationRequested(continuationID: id), at: now, by: .journey)
                live = true
            } else {
                live = try store.livePending(verificationID: current.id, at: now, on: connection) != nil
            }
        }
        guard live else { throw Self.noLiveContinuation }
    }

    static let noLiveContinuation = DomainError.conflict(
        detail: "There is no code on the computer to continue from; show a new code there first.", code: .noContinuationRequested)

    /// How the pinned workflow continues (its matching and what a report does).
    func options(of verification: Verification) throws -> WorkflowContinuation {
        try workflows.workflow(accountID: verification.accountID, key: verification.workflowKey, version: verification.workflowVersion)?
            .continuation ?? WorkflowContinuation()
    }

    /// Texts the link to the verification's own mobile number (the first device presents the
    /// secret it was given, which the service does not keep).
    func text(_ secretText: String, for verification: Verification) throws {
        guard let secret = BearerSecret(presented: secretText),
              try store.isPending(secretHash: Digest.sha256Hex(secret.value), verificationID: verification.id, at: clock.now())
        else { throw Self.invalid }
        guard sender.isConfigured else {
            throw DomainError.unavailable(detail: "Texting is not available just now; scan the code instead.", code: .smsUnavailable,
                                          retryAfterSeconds: 60)
        }
        let now = clock.now()
        let budget = try rateLimits.take(bucket: "\(Self.smsLimit.name):\(verification.id.rawValue)", at: now,
                                         interval: Self.smsLimit.interval, burst: Self.smsLimit.burst)
        guard budget.allowed else {
            throw DomainError.rateLimited(detail: "The link was texted a moment ago. Please wait before asking again.",
                                          retryAfterSeconds: budget.retryAfterSeconds)
        }
        let url = publicURL.absoluteString + "/j/" + verification.id.rawValue + "#continue=" + secret.value
        let id = ObjectID(.message, using: random)
        let message = SMSDelivery.Message(to: verification.mobile, body: "Continue your verification on this phone: \(url)")
        try store.queueMessage(id: id, verificationID: verification.id, sealed: try SMSDelivery.seal(message, id: id, box: smsBox, random: random),
                               at: now)
        messageQueued()
    }

    /// The second device opens the link: exactly one device gets the three choices and a claim.
    func open(verificationID: ObjectID, secret text: String) throws -> (prompt: ContinuationPrompt, claim: BearerSecret) {
        guard let secret = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID), verification.status.isEditable
        else { throw Self.invalid }
        let claim = BearerSecret(using: random)
        guard let opened = try store.open(secretHash: Digest.sha256Hex(secret.value), verificationID: verificationID,
                                          claimHash: Digest.sha256Hex(claim.value), at: clock.now())
        else { throw Self.invalid }
        // Wakes the first device's long-poll: its page can say the phone is choosing.
        verifications.announceChange(id: verificationID)
        let prompt = ContinuationPrompt(number: opened.number, matching: try options(of: verification).matching, origin: opened.origin,
                                        requestedAt: opened.createdAt, using: random)
        return (prompt, claim)
    }

    /// "This wasn't me" from the device holding the claim: the link is burnt, the verification
    /// flagged (and canceled where the workflow says so), once; nothing is sent to anyone.
    func report(verificationID: ObjectID, claim text: String?) throws {
        guard let text, let claim = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID)
        else { throw Self.invalid }
        let cancel = try options(of: verification).onReport == .cancel
        let now = clock.now()
        var reported = false
        _ = try verifications.update(tenancy: verification.tenancy, id: verificationID, at: now) { current, connection in
            guard current.status.isEditable,
                  try store.report(claimHash: Digest.sha256Hex(claim.value), verificationID: verificationID, at: now, on: connection)
            else { return }
            try current.apply(.continuationReported(cancel: cancel), at: now, by: .journey)
            reported = true
        }
        guard reported else { throw Self.invalid }
    }

    /// The claim's one pick: the right number signs the device in (a session token), a wrong
    /// one burns the link (and is an event), both exactly once.
    func pick(verificationID: ObjectID, claim text: String?, number: String?) throws -> BearerSecret {
        guard let text, let claim = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID)
        else { throw Self.invalid }
        let now = clock.now()
        var matched: Bool?
        _ = try verifications.update(tenancy: verification.tenancy, id: verificationID, at: now) { current, connection in
            guard current.status.isEditable else { return }
            matched = try store.pick(claimHash: Digest.sha256Hex(claim.value), verificationID: verificationID,
                                     number: number.flatMap(ContinuationRules.presentedNumber) ?? "", at: now, on: connection)
            if let matched { try current.apply(matched ? .continuationMatched : .continuationFailed, at: now, by: .journey) }
        }
        guard let matched else { throw Self.invalid }
        guard matched else {
            throw DomainError.conflict(detail: "That is not the number on the other screen. Start again from there: it shows a new code.",
                                       code: .continuationFailed)
        }
        guard let token = try signIn.startSession(verificationID: verificationID, returnURL: nil, method: .continuation) else {
            throw Self.invalid
        }
        return token
    }

    /// "Continue here instead": the link not yet used stops working (a phone already signed
    /// in keeps its session).
    func revoke(for verification: Verification) throws {
        try store.revokeOpen(verificationID: verification.id, at: clock.now())
        // Wakes this verification's waiters (the page's own long-poll).
        verifications.announceChange(id: verification.id)
    }

    /// What the first device follows: the newest continuation, the steps completed so far, and
    /// where to go once the other device has submitted (`redirect_url`, made by `answer` only
    /// for an answer that is sent: a follow that waits does not sign a result it drops).
    /// Encodable for the tests, which check `json()` against `JSONCoding.encoder`.
    struct Progress: Encodable {
        let tag: String
        let status: String
        let continuation: ContinuationView?
        let steps: [StepView]
        var redirect_url: String? = nil
        /// After a "this wasn't me" report: seconds until a new code can be made (0 once it can).
        let blocked_seconds: Int?
        /// Whole seconds until the current link expires while it is still pending or opened (its
        /// status, and so the tag, change then with nothing written); nil when no such link.
        /// Not part of the body.
        var secondsUntilExpiry: Int? = nil
        /// The submitted verification whose redirect the answer carries; nil when none (not
        /// submitted, or this visit was continued on another device). Not part of the body.
        var submitted: Verification? = nil

        struct ContinuationView: Encodable {
            let status: String
            let expires_at: String?
        }

        struct StepView: Encodable {
            let id: String
            let status: String
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(tag, forKey: .tag)
            try c.encode(status, forKey: .status)
            try c.encode(continuation, forKey: .continuation)
            try c.encode(steps, forKey: .steps)
            try c.encode(redirect_url, forKey: .redirect_url)
            try c.encodeIfPresent(blocked_seconds, forKey: .blocked_seconds)
        }

        enum CodingKeys: String, CodingKey { case tag, status, continuation, steps, redirect_url, blocked_seconds }
    }

    func progress(verificationID: ObjectID, session: SignInStore.Session) throws -> Progress? {
        guard let verification = try verifications.verification(id: verificationID) else { return nil }
        let current = try store.current(verificationID: verificationID)
        let now = clock.now()
        let status = current.map { $0.status == "pending" || $0.status == "opened" ? ($0.expiresAt <= now ? "expired" : $0.status) : $0.status }
        let live = current.flatMap { ($0.status == "pending" || $0.status == "opened") && $0.expiresAt > now ? $0.expiresAt : nil }
        return Progress(tag: "\(verification.revision)-\(current?.id ?? "")-\(status ?? "")", status: verification.status.rawValue,
                        continuation: current.map { Progress.ContinuationView(status: status ?? $0.status, expires_at: APIObjects.timestamp($0.expiresAt)) },
                        steps: verification.steps.map { Progress.StepView(id: $0.id, status: $0.statusName) },
                        blocked_seconds: current?.status == ContinuationStatus.reported.rawValue ? try pauseAfterReport(verificationID: verificationID, at: now) : nil,
                        secondsUntilExpiry: live.map { Int(min($0.timeIntervalSince(now).rounded(.up), ContinuationRules.lifetime)) },
                        submitted: verification.status == .submitted && !session.continued ? verification : nil)
    }

    /// The follow's answer to send: `progress` with its redirect URL made now (a fresh signed
    /// result echoing this visit's nonce), as JSON.
    func answer(_ progress: Progress, session: SignInStore.Session) throws -> [UInt8] {
        var progress = progress
        progress.redirect_url = try progress.submitted.flatMap {
            try journey.redirect(after: $0, visitReturnURL: session.returnURL, nonce: session.nonce)
        }
        return progress.json()
    }

    static let invalid = DomainError.unauthorized(
        detail: "This link has been used, replaced or has expired. Scan the code on the other screen again.", code: .continuationInvalid)
}
