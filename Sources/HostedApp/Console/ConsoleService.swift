import Foundation
import HostedCore
import HostedCrypto
import HostedImaging
import HostedStorage

/// Operators and their way in: creation with a setup link, setup (password and TOTP enrolment),
/// sign-in with email + password + code, sessions, disabling.
public struct ConsoleService: Sendable {
    let operators: OperatorStore
    /// Sign-in attempts per client address (the lockout is per operator).
    let rateLimits: RateLimitStore?
    let hasher: PasswordHasher
    /// Seals TOTP seeds (bound to the operator's id).
    let box: SecretBox
    let publicURL: URL
    let clock: any WallClock
    let random: any RandomSource

    init(operators: OperatorStore, rateLimits: RateLimitStore? = nil, secretKey: SecretKey, publicURL: URL, clock: any WallClock,
         random: any RandomSource) {
        self.operators = operators
        self.rateLimits = rateLimits
        self.hasher = PasswordHasher(random: random)
        self.box = SecretBox.derive(from: secretKey.bytes(), label: "hosted/totp-seeds/v1")
        self.publicURL = publicURL
        self.clock = clock
        self.random = random
    }

    /// Sign-in attempts from one address: 20 at once, then one per 30 seconds.
    static let addressLimit = (name: "console-signin", interval: 30.0, burst: 20)

    /// The issuer authenticator apps show beside the code.
    static let issuer = "Hosted"

    // MARK: Operators

    /// Creates an invited operator of `accountID`; returns it with its single-use setup URL
    /// (valid 24 h, its secret in the fragment).
    public func create(accountID: ObjectID, email: String, role: OperatorRole) throws -> (Operator, setupURL: String) {
        guard let normalized = OperatorRules.normalizedEmail(email) else {
            throw DomainError.invalidRequest(detail: "The email address is not valid.",
                                             errors: [FieldError(field: "email", message: "must be an email address")])
        }
        let now = clock.now()
        let op = Operator(id: ObjectID(.operator, using: random), accountID: accountID, email: normalized, role: role,
                          status: .invited, createdAt: now, lastSignInAt: nil)
        let secret = BearerSecret(using: random)
        try operators.create(op, setupHash: Digest.sha256Hex(secret.value),
                             setupExpiresAt: now.addingTimeInterval(OperatorRules.setupLinkSeconds), eventID: eventID())
        return (op, setupURL(secret))
    }

    /// A new setup link for an operator who is not disabled (lost authenticator, forgotten
    /// password): the old password, seed and sessions stop working at once.
    public func reissueSetup(id: ObjectID) throws -> (Operator, setupURL: String) {
        let now = clock.now()
        let secret = BearerSecret(using: random)
        guard let op = try operators.reissueSetup(id: id, setupHash: Digest.sha256Hex(secret.value),
                                                  setupExpiresAt: now.addingTimeInterval(OperatorRules.setupLinkSeconds),
                                                  eventID: eventID(), at: now)
        else { throw DomainError.notFound(what: "operator") }
        return (op, setupURL(secret))
    }

    /// Disables an operator (of `accountID` when given, as an admin in the console does) and ends
    /// its sessions at once.
    public func disable(id: ObjectID, accountID: ObjectID? = nil, by actor: ObjectID? = nil) throws -> Operator {
        guard let op = try operators.disable(id: id, accountID: accountID, by: actor, eventID: eventID(), at: clock.now()) else {
            throw DomainError.notFound(what: "operator")
        }
        return op
    }

    public func list(accountID: ObjectID) throws -> [Operator] { try operators.list(accountID: accountID) }

    private func setupURL(_ secret: BearerSecret) -> String {
        publicURL.absoluteString + "/console/setup#token=" + secret.value
    }

    func eventID() -> ObjectID { ObjectID(.operatorEvent, using: random) }

    // MARK: Setup

    /// What the setup page shows: the operator's email, the TOTP seed as text and as a QR code
    /// of its `otpauth://` URI. The seed is made on the first call and kept (sealed) until setup
    /// completes, so a reload shows the same one.
    struct Enrolment {
        let op: Operator
        let secret: String
        let uri: String
        let qrSVG: String
    }

    func enrolment(token: String) throws -> Enrolment {
        guard let secret = BearerSecret(presented: token) else { throw Self.setupLinkInvalid }
        let hash = Digest.sha256Hex(secret.value)
        let now = clock.now()
        guard let (op, pending) = try operators.setupTarget(setupHash: hash, at: now) else { throw Self.setupLinkInvalid }
        let sealed: String
        if let pending {
            sealed = pending
        } else {
            let fresh = try seal(random.bytes(TOTP.seedBytes), for: op.id)
            guard let kept = try operators.keepPendingTOTP(setupHash: hash, sealed: fresh, at: now) else { throw Self.setupLinkInvalid }
            sealed = kept
        }
        guard let seed = open(sealed, for: op.id) else { throw Self.setupLinkInvalid }
        let uri = TOTP.provisioningURI(seed: seed, issuer: Self.issuer, account: op.email)
        guard let svg = QRCodeImage.svg(for: uri) else { throw Self.setupLinkInvalid }
        return Enrolment(op: op, secret: TOTP.displaySecret(seed), uri: uri, qrSVG: svg)
    }

    /// Uses the setup link: sets the password (after the policy) and enrols the seed shown,
    /// proven by a current code from it. The link works once.
    func completeSetup(token: String, password: String?, code: String?) throws -> Operator {
        guard let secret = BearerSecret(presented: token) else { throw Self.setupLinkInvalid }
        let hash = Digest.sha256Hex(secret.value)
        let now = clock.now()
        guard let (op, pending) = try operators.setupTarget(setupHash: hash, at: now), let pending,
              let seed = open(pending, for: op.id)
        else { throw Self.setupLinkInvalid }
        var errors: [FieldError] = []
        if let problem = PasswordPolicy.problem(with: password ?? "", email: op.email) {
            errors.append(FieldError(field: "password", message: problem))
        }
        let step = TOTP.presented(code ?? "").flatMap { TOTPCodes.matchingStep($0, seed: seed, counter: TOTP.counter(at: now)) }
        if step == nil { errors.append(FieldError(field: "code", message: "is not the current code of your authenticator app")) }
        guard errors.isEmpty, let step, let password else {
            let passwordRefused = errors.contains { $0.field == "password" }
            throw DomainError.invalidRequest(detail: passwordRefused ? "Choose another password." : "That code is not right. Enter the current code.",
                                             errors: errors, code: passwordRefused ? .passwordNotAllowed : .codeInvalid)
        }
        let passwordHash = try hasher.hash(password)
        guard let ready = try operators.completeSetup(setupHash: hash, passwordHash: passwordHash, totpStep: step,
                                                      eventID: eventID(), at: now)
        else { throw Self.setupLinkInvalid }
        return ready
    }

    static let setupLinkInvalid = DomainError.missing(detail: "This setup link has been used or has expired. Ask an admin for a new one.",
                                                      code: .setupLinkInvalid)

    // MARK: Sign-in

    /// Email + password + TOTP code. Every failure is the same error, whatever failed; an
    /// unknown email costs one Argon2id verification like a wrong password.
    func signIn(email: String?, password: String?, code: String?, clientAddress: String = "") throws -> (Operator, BearerSecret) {
        let now = clock.now()
        if let rateLimits {
            let budget = try rateLimits.take(bucket: "\(Self.addressLimit.name):\(clientAddress)", at: now,
                                             interval: Self.addressLimit.interval, burst: Self.addressLimit.burst)
            guard budget.allowed else {
                throw DomainError.rateLimited(detail: "Too many sign-in attempts from this address. Please wait.",
                                              retryAfterSeconds: budget.retryAfterSeconds)
            }
        }
        guard let email = email.flatMap(OperatorRules.normalizedEmail),
              let credentials = try operators.beginSignIn(email: email, at: now)
        else {
            _ = hasher.verify(password ?? "", against: PasswordHasher.decoy)
            throw Self.signInFailed
        }
        guard credentials.attempt <= OperatorRules.maximumFailedSignIns else {
            _ = hasher.verify(password ?? "", against: PasswordHasher.decoy)
            throw Self.signInFailed
        }
        let op = credentials.operator
        let passwordRight = hasher.verify(password ?? "", against: credentials.passwordHash)
        let step = open(credentials.totpSealed, for: op.id).flatMap { seed in
            TOTP.presented(code ?? "").flatMap { TOTPCodes.matchingStep($0, seed: seed, counter: TOTP.counter(at: now)) }
        }
        guard passwordRight, let step, step > (credentials.lastStep ?? -1),
              try operators.signInSucceeded(credentials, step: step, eventID: eventID(), at: now)
        else {
            try operators.signInFailed(credentials, maximum: OperatorRules.maximumFailedSignIns,
                                       lockedUntil: now.addingTimeInterval(OperatorRules.lockoutSeconds), eventID: eventID(), at: now)
            throw Self.signInFailed
        }
        // A fresh session id at every sign-in; only its hash is stored.
        let token = BearerSecret(using: random)
        try operators.insertSession(tokenHash: Digest.sha256Hex(token.value), operatorID: op.id, at: now)
        return (op, token)
    }

    static let signInFailed = DomainError.unauthorized(
        detail: "The email, password or code is not right. After 5 failed tries, sign-in is locked for 15 minutes.",
        code: .consoleSigninFailed)

    /// The operator of a live console session (its idle clock restarted), or nil.
    func session(token: String?) throws -> Operator? {
        guard let token, let secret = BearerSecret(presented: token) else { return nil }
        let now = clock.now()
        return try operators.session(tokenHash: Digest.sha256Hex(secret.value),
                                     idleSince: now.addingTimeInterval(-OperatorRules.idleTimeoutSeconds),
                                     begunSince: now.addingTimeInterval(-OperatorRules.absoluteTimeoutSeconds), at: now)
    }

    func signOut(token: String?, op: Operator?) throws {
        guard let token, let secret = BearerSecret(presented: token) else { return }
        try operators.endSession(tokenHash: Digest.sha256Hex(secret.value), at: clock.now())
        if let op { try operators.record(.signedOut, operatorID: op.id, accountID: op.accountID, actorID: op.id, id: eventID(), at: clock.now()) }
    }

    // MARK: Seeds

    private func seal(_ seed: [UInt8], for id: ObjectID) throws -> String {
        Data(try box.seal(seed, context: "operator-totp:" + id.rawValue, random: random.bytes(12))).base64EncodedString()
    }

    private func open(_ sealed: String, for id: ObjectID) -> [UInt8]? {
        Data(base64Encoded: sealed).flatMap { box.open(Array($0), context: "operator-totp:" + id.rawValue) }
    }
}

extension ConsoleService {
    /// The operator as the command line prints it.
    public static func summary(_ op: Operator) -> [String: String] {
        var summary = ["operator_id": op.id.rawValue, "account_id": op.accountID.rawValue, "email": op.email,
                       "role": op.role.rawValue, "status": op.status.rawValue]
        if let created = APIObjects.timestamp(op.createdAt) { summary["created_at"] = created }
        if let last = APIObjects.timestamp(op.lastSignInAt) { summary["last_sign_in_at"] = last }
        return summary
    }
}
