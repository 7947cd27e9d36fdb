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
    }

    /// A new link for the signed-in verification; any earlier one not yet used stops working.
    func create(for verification: Verification) throws -> Created {
        let now = clock.now()
        let secret = BearerSecret(using: random)
        let number = ContinuationRules.number(using: random)
        let expiresAt = now.addingTimeInterval(ContinuationRules.lifetime)
        _ = try verifications.update(accountID: verification.accountID, id: verification.id, at: now) { current, connection in
            try current.apply(.continuationCreated, at: now, by: .journey)
            try store.replace(id: ObjectID(.continuation, using: random), verificationID: current.id,
                              secretHash: Digest.sha256Hex(secret.value), number: number, at: now, expiresAt: expiresAt, on: connection)
        }
        // From the configured public URL, never from the request's Host.
        let url = publicURL.absoluteString + "/j/" + verification.id.rawValue + "#continue=" + secret.value
        guard let svg = QRCodeImage.svg(for: url) else { throw DomainError.invalidRequest(detail: "The link could not be drawn.") }
        return Created(url: url, number: number, expires_at: APIObjects.timestamp(expiresAt), qr_svg: svg)
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
    func open(verificationID: ObjectID, secret text: String) throws -> (options: [String], claim: BearerSecret) {
        guard let secret = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID), verification.status.isEditable
        else { throw Self.invalid }
        let claim = BearerSecret(using: random)
        guard let opened = try store.open(secretHash: Digest.sha256Hex(secret.value), verificationID: verificationID,
                                          claimHash: Digest.sha256Hex(claim.value), at: clock.now())
        else { throw Self.invalid }
        // Wakes the first device's long-poll: its page can say the phone is choosing.
        verifications.announceChange(id: verificationID)
        return (ContinuationRules.options(including: opened.number, using: random), claim)
    }

    /// The claim's one pick: the right number signs the device in (a session token), a wrong
    /// one burns the link (and is an event), both exactly once.
    func pick(verificationID: ObjectID, claim text: String?, number: String?) throws -> BearerSecret {
        guard let text, let claim = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID)
        else { throw Self.invalid }
        let now = clock.now()
        var matched: Bool?
        _ = try verifications.update(accountID: verification.accountID, id: verificationID, at: now) { current, connection in
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
    /// where to go once the other device has submitted.
    struct Progress: Encodable {
        let tag: String
        let status: String
        let continuation: ContinuationView?
        let steps: [StepView]
        let redirect_url: String?
        /// Whole seconds until the current link expires while it is still pending or opened (its
        /// status, and so the tag, change then with nothing written); nil when no such link.
        /// Not part of the body.
        var secondsUntilExpiry: Int? = nil

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
        }

        enum CodingKeys: String, CodingKey { case tag, status, continuation, steps, redirect_url }
    }

    func progress(verificationID: ObjectID, session: SignInStore.Session) throws -> Progress? {
        guard let verification = try verifications.verification(id: verificationID) else { return nil }
        let current = try store.current(verificationID: verificationID)
        let now = clock.now()
        let status = current.map { $0.status == "pending" || $0.status == "opened" ? ($0.expiresAt <= now ? "expired" : $0.status) : $0.status }
        let redirect = verification.status == .submitted && !session.continued
            ? try journey.redirect(after: verification, visitReturnURL: session.returnURL) : nil
        let live = current.flatMap { ($0.status == "pending" || $0.status == "opened") && $0.expiresAt > now ? $0.expiresAt : nil }
        return Progress(tag: "\(verification.revision)-\(current?.id ?? "")-\(status ?? "")", status: verification.status.rawValue,
                        continuation: current.map { Progress.ContinuationView(status: status ?? $0.status, expires_at: APIObjects.timestamp($0.expiresAt)) },
                        steps: verification.steps.map { Progress.StepView(id: $0.id, status: $0.statusName) },
                        redirect_url: redirect,
                        secondsUntilExpiry: live.map { Int(min($0.timeIntervalSince(now).rounded(.up), ContinuationRules.lifetime)) })
    }

    static let invalid = DomainError.unauthorized(
        detail: "This link has been used, replaced or has expired. Scan the code on the other screen again.", code: .continuationInvalid)
}
