import Foundation
import HostedCore
import HostedCrypto
import HostedObservability
import HostedStorage

/// Handoffs, journey sessions and the SMS-code fallback: the rules of signing in to a journey.
struct SignInService: Sendable {
    /// Every sign-in failure looks the same.
    static let signInRequired = DomainError.unauthorized(detail: "Sign in with your mobile number to continue.", code: .signinRequired)

    let store: SignInStore
    /// A handoff minted for the customer's app opens the computer's continuation.
    let continuations: ContinuationStore
    let verifications: VerificationStore
    let workflows: WorkflowStore
    let returnURLs: ReturnURLStore
    let policy: ReturnURLPolicy
    let rateLimits: RateLimitStore
    let sender: any SMSSender
    /// Key of the HMAC over SMS codes: a bare hash of a million codes would be reversed offline.
    let codeKey: SecretKey
    /// Key of the HMAC that names a mobile number in rate-limit buckets (`numberKey`).
    let numberHashKey: [UInt8]
    /// Seals queued messages (they hold the code) under a key derived from the secret key.
    let smsBox: SecretBox
    /// Called after a message is queued (wakes this process's sender).
    let codeQueued: @Sendable () -> Void
    let publicURL: URL
    let clock: any WallClock
    let random: any RandomSource
    let log: any ServerLog

    /// How long a journey session lasts at most (it ends sooner if the verification closes).
    static let sessionLifetime: TimeInterval = 24 * 3600

    // MARK: Handoffs

    /// Mints a handoff for an open verification of the account; the URL is the only copy of its
    /// secret. With `continuation`, the handoff joins the computer's live continuation instead of
    /// signing in (the customer's app, after `continuation_requested`): 409
    /// `no_continuation_requested` when the computer shows none. `nonce` (1 to 128 printable
    /// ASCII characters) is echoed by the signed result of the visit it opens.
    func mintHandoff(tenancy: Tenancy, verificationID: ObjectID, returnURL: String?, expiresIn: Int?, continuation: Bool = false,
                     nonce: String? = nil, by actor: EventActor) throws -> (Handoff, url: String) {
        let lifetime = try Handoff.lifetime(expiresIn)
        try nonce.map(Self.checkNonce)
        let accountID = tenancy.accountID
        guard let verification = try verifications.verification(tenancy: tenancy, id: verificationID) else {
            throw DomainError.notFound(what: "verification")
        }
        guard !verification.status.isClosed else {
            throw DomainError.conflict(detail: "The verification is \(verification.status.rawValue); no handoff can open it.",
                                       code: .verificationClosed)
        }
        let checkedReturnURL = try returnURL.map {
            try policy.requireRegistered($0, registered: try returnURLs.list(accountID: accountID).map(\.url)).url
        }
        let now = clock.now()
        let secret = BearerSecret(using: random)
        let handoff = Handoff(id: ObjectID(.handoff, using: random), verificationID: verificationID, accountID: accountID,
                              returnURL: checkedReturnURL, createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
        var joinable = !continuation
        _ = try verifications.update(tenancy: tenancy, id: verificationID, at: now) { current, connection in
            var continuationID: String?
            if continuation {
                guard current.status.isEditable, let live = try continuations.livePending(verificationID: verificationID, at: now, on: connection)
                else { return }
                continuationID = live
                joinable = true
            }
            try current.apply(.handoffCreated, at: now, by: actor)
            try store.insertHandoff(handoff, secretHash: Digest.sha256Hex(secret.value), continuationID: continuationID, nonce: nonce,
                                    on: connection)
        }
        guard joinable else {
            throw DomainError.conflict(detail: "The computer shows no code to continue from just now; the user can ask again there.",
                                       code: .noContinuationRequested)
        }
        // Built from the configured public URL only, never from the request's Host.
        let url = publicURL.absoluteString + "/j/" + verificationID.rawValue + "#handoff=" + secret.value
        return (handoff, url)
    }

    /// A fresh secret for a handoff still waiting to be used (an idempotent retry of its
    /// creation): the previous secret stops working at once. 409 when it was used or expired, or
    /// its verification closed — then a new handoff is what the caller needs.
    func reissueHandoff(tenancy: Tenancy, handoffID: ObjectID) throws -> (Handoff, url: String) {
        let accountID = tenancy.accountID
        let secret = BearerSecret(using: random)
        guard let handoff = try store.replaceHandoffSecret(id: handoffID, accountID: accountID,
                                                           secretHash: Digest.sha256Hex(secret.value), at: clock.now()),
              let verification = try verifications.verification(tenancy: tenancy, id: handoff.verificationID),
              !verification.status.isClosed
        else {
            throw DomainError.conflict(detail: "The handoff created with this Idempotency-Key was used or has expired; create a new one.",
                                       code: .handoffNotReissuable)
        }
        return (handoff, publicURL.absoluteString + "/j/" + handoff.verificationID.rawValue + "#handoff=" + secret.value)
    }

    /// What a handoff gave: a session, or (a handoff for the customer's app) the computer's
    /// continuation opened for this device, whose number it must match first.
    enum Exchanged {
        case session(BearerSecret)
        case continuation(ContinuationPrompt, claim: BearerSecret)
    }

    /// Exchanges a handoff secret. nil for every kind of failure alike (expired, used, unknown,
    /// another verification's, canceled): no oracle.
    func exchange(verificationID: ObjectID, secret text: String) throws -> Exchanged? {
        guard let secret = BearerSecret(presented: text) else { return nil }
        let hash = Digest.sha256Hex(secret.value)
        // The handoff is burnt in the session's transaction: both happen, or neither does.
        if let token = try startSession(verificationID: verificationID, method: .handoff, claim: { connection, now in
            try store.claimHandoff(secretHash: hash, verificationID: verificationID, at: now, on: connection)
        }) {
            return .session(token)
        }
        guard let verification = try verifications.verification(id: verificationID), verification.status.isEditable else { return nil }
        let claim = BearerSecret(using: random)
        guard let opened = try continuations.openByHandoff(secretHash: hash, verificationID: verificationID,
                                                           claimHash: Digest.sha256Hex(claim.value), at: clock.now())
        else { return nil }
        // The computer's long-poll: its page can say the phone is matching.
        verifications.announceChange(id: verificationID)
        let matching = try workflows.workflow(accountID: verification.accountID, key: verification.workflowKey,
                                              version: verification.workflowVersion)?.continuation.matching ?? .choose
        return .continuation(ContinuationPrompt(number: opened.number, matching: matching, origin: opened.origin,
                                                requestedAt: opened.createdAt, using: random), claim: claim)
    }

    /// A handoff's `nonce`: 1 to 128 printable ASCII characters (no control characters), so it
    /// echoes as the customer's backend sent it; else 422 `invalid_request` naming `nonce`.
    static func checkNonce(_ nonce: String) throws {
        guard (1...128).contains(nonce.utf8.count), nonce.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw DomainError.invalidRequest(detail: "nonce must be 1 to 128 printable ASCII characters.",
                                             errors: [FieldError(field: "nonce", message: "must be 1 to 128 printable ASCII characters",
                                                                 code: .invalid)])
        }
    }

    // MARK: SMS codes

    /// What the page is told after asking for a code: always the same whether or not the number
    /// matched and whether or not the message can be sent (no enumeration, no timing oracle).
    enum CodeRequest: Equatable {
        case accepted
        /// No SMS sender is configured at all (the same for every number).
        case unavailable
    }

    /// Queues a code for `mobile` if it is the verification's number. Every request takes the
    /// client's address bucket, then (for an open verification) the verification's buckets for
    /// this number and client (`SignInLimits`), whatever the number: a 429 says nothing about it,
    /// and a stranger spends only their own budget. The number's send budget is spent only by
    /// codes really sent to it, and a spent one answers like any other request (202, nothing sent).
    func requestCode(verificationID: ObjectID, mobile text: String, clientAddress: String) throws -> CodeRequest {
        guard let mobile = MobileNumber.normalized(text) else {
            throw DomainError.invalidRequest(detail: "Enter the mobile number with its country code, e.g. +91 98765 43210.",
                                             errors: [FieldError(field: "mobile", message: "must be a number with its country code", code: .mobileInvalid)])
        }
        let now = clock.now()
        let numberKey = Self.numberKey(mobile, key: numberHashKey)
        // A test verification sends nothing, so it needs no sender; which mode a verification is
        // in is no secret from its journey link (the page shows a test banner).
        let verification = try verifications.verification(id: verificationID)
        guard sender.isConfigured || verification?.livemode == false else { return .unavailable }
        try take(SignInLimits.addressBucket(clientAddress: clientAddress), at: now)
        // A verification that does not exist or is closed spends only the address's budget (no
        // rows for made-up ids).
        guard let verification, !verification.status.isClosed else {
            return .accepted
        }
        for bucket in SignInLimits.verificationBuckets(verificationID: verificationID.rawValue, numberKey: numberKey,
                                                       clientAddress: clientAddress) {
            try take(bucket, at: now)
        }
        guard Digest.constantTimeEquals(Array(verification.mobile.utf8), Array(mobile.utf8)) else { return .accepted }
        let send = SignInLimits.sendBucket(numberKey: numberKey)
        guard try rateLimits.take(bucket: send.key, at: now, interval: send.limit.interval, burst: send.limit.burst).allowed else {
            log.error("sign-in code for \(verificationID) not sent: its number had \(send.limit.burst) codes this hour",
                      requestID: nil)
            return .accepted
        }
        guard verification.livemode else {
            // Test mode: the code is 000000 and no message is queued (no SMS is ever sent).
            try store.replaceCode(verificationID: verificationID, codeHMAC: hmac(.testMode, verificationID), at: now,
                                  expiresAt: now.addingTimeInterval(OneTimeCode.lifetime), message: nil)
            return .accepted
        }
        let code = OneTimeCode(using: random)
        let messageID = ObjectID(.message, using: random)
        let message = SMSDelivery.Message(to: mobile, body: "\(code.digits) is your verification code. It expires in 10 minutes. Never share it.")
        try store.replaceCode(verificationID: verificationID, codeHMAC: hmac(code, verificationID), at: now,
                              expiresAt: now.addingTimeInterval(OneTimeCode.lifetime),
                              message: (messageID, try SMSDelivery.seal(message, id: messageID, box: smsBox, random: random)))
        codeQueued()
        return .accepted
    }

    /// How a number is named where it must be found again but not read (rate-limit buckets):
    /// HMAC-SHA-256 under a key derived from the secret key. A bare SHA-256 of a mobile number
    /// is reversed by trying every number of the country.
    static func numberKey(_ mobile: String, key: [UInt8]) -> String {
        Digest.hex(Digest.hmacSHA256(key: key, message: Array(mobile.utf8)))
    }

    /// The key of `numberKey`, derived from the secret key with its own label.
    static func numberHashKey(from secretKey: SecretKey) -> [UInt8] {
        Digest.hmacSHA256(key: secretKey.bytes(), message: Array("hosted/mobile-numbers/v1".utf8))
    }

    private func take(_ bucket: SignInLimits.Bucket, at now: Date) throws {
        let decision = try rateLimits.take(bucket: bucket.key, at: now, interval: bucket.limit.interval, burst: bucket.limit.burst)
        guard decision.allowed else {
            throw DomainError.rateLimited(detail: "Please wait before asking for another code.",
                                          retryAfterSeconds: decision.retryAfterSeconds)
        }
    }

    /// Checks a code; a session token when it is right, nil otherwise (wrong, expired, used,
    /// or out of tries — all alike).
    func verifyCode(verificationID: ObjectID, code text: String) throws -> BearerSecret? {
        guard let code = OneTimeCode(presented: text) else { return nil }
        let check = try store.checkCode(verificationID: verificationID, codeHMAC: hmac(code, verificationID),
                                        maximumAttempts: OneTimeCode.maximumAttempts, at: clock.now())
        guard check == .accepted else { return nil }
        return try startSession(verificationID: verificationID, returnURL: nil, method: .sms)
    }

    /// Bound to the verification, so a code cannot be replayed on another one.
    private func hmac(_ code: OneTimeCode, _ verificationID: ObjectID) -> String {
        Digest.hex(Digest.hmacSHA256(key: codeKey.bytes(), message: Array("\(verificationID.rawValue):\(code.digits)".utf8)))
    }

    // MARK: Sessions

    /// A fresh session token at every sign-in; the first sign-in moves the verification to `in_progress`.
    func startSession(verificationID: ObjectID, returnURL: String?, method: SignInMethod) throws -> BearerSecret? {
        try startSession(verificationID: verificationID, method: method) { _, _ in SignInStore.ClaimedHandoff(returnURL: returnURL, nonce: nil) }
    }

    /// Starts a session for an open verification in one transaction with `claim` (which burns
    /// the credential signed in with and gives the visit's return URL and nonce, or nil when the
    /// credential is not good): the claim, the session and the `signed_in` event commit together,
    /// so a failure anywhere leaves the credential unused. Nil when the claim or the verification
    /// refuses.
    func startSession(verificationID: ObjectID, method: SignInMethod,
                      claim: (DatabaseConnection, Date) throws -> SignInStore.ClaimedHandoff?) throws -> BearerSecret? {
        guard let verification = try verifications.verification(id: verificationID), !verification.status.isClosed else { return nil }
        let now = clock.now()
        let token = BearerSecret(using: random)
        var started = false
        _ = try verifications.update(tenancy: verification.tenancy, id: verificationID, at: now) { current, connection in
            guard !current.status.isClosed, let claimed = try claim(connection, now) else { return }
            try store.insertSession(tokenHash: Digest.sha256Hex(token.value), verificationID: verificationID, returnURL: claimed.returnURL,
                                    at: now, expiresAt: now.addingTimeInterval(Self.sessionLifetime), method: method,
                                    nonce: claimed.nonce, on: connection)
            try current.apply(.signedIn(method: method), at: now, by: .journey)
            started = true
        }
        return started ? token : nil
    }

    /// The live session behind a cookie token, for an open verification.
    func session(verificationID: ObjectID, token text: String?) throws -> (SignInStore.Session, Verification)? {
        // The verification first: reading one past its time expires it, which ends its sessions,
        // so the session looked up next is already gone.
        guard let text, let token = BearerSecret(presented: text),
              let verification = try verifications.verification(id: verificationID),
              let session = try store.session(tokenHash: Digest.sha256Hex(token.value), verificationID: verificationID, at: clock.now())
        else { return nil }
        return (session, verification)
    }

    /// What the page may tell about a verification that is submitted or closed, else nil (open,
    /// or no such verification: alike). With a live session for it, its status; without one
    /// (anyone holding the link), never the decision: `approved` and `rejected` are both
    /// `closed`. `submitted`, `canceled` and `expired` are told as they are: none is a decision
    /// about the user, and each tells them what to do next (wait; ask the business; ask for a
    /// new link).
    func finishedStatus(verificationID: ObjectID, token: String?) throws -> String? {
        guard let verification = try verifications.verification(id: verificationID),
              verification.status == .submitted || verification.status.isClosed
        else { return nil }
        if try session(verificationID: verificationID, token: token) != nil { return verification.status.rawValue }
        switch verification.status {
        case .approved, .rejected: return Self.closedStatus
        default: return verification.status.rawValue
        }
    }

    /// The status a closed verification shows to someone without a session.
    static let closedStatus = "closed"

    func endSession(token text: String?) throws {
        guard let text, let token = BearerSecret(presented: text) else { return }
        try store.endSession(tokenHash: Digest.sha256Hex(token.value), at: clock.now())
    }
}
