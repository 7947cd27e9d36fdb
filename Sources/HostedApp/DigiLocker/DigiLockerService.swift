import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedStorage
import HostedXML

/// The DigiLocker step's round trip: a one-time `state` bound to the verification, the step and
/// the browser (a nonce cookie), PKCE S256, then the code exchange, the documents reduced to the
/// fields kept, and the step completed — all or nothing.
struct DigiLockerService: Sendable {
    let store: DigiLockerStore
    let journey: JourneyService
    let rateLimits: RateLimitStore
    /// nil when DigiLocker is not configured (and not in dev mode).
    let provider: DigiLockerProvider?
    /// The simulator, for test verifications (with or without dev mode).
    let testProvider: DigiLockerProvider
    let key: SecretKey
    let clock: any WallClock
    let random: any RandomSource

    /// How long the user has to consent and come back.
    static let stateLifetime: TimeInterval = 600
    /// Round trips one verification may start: 10 at once, then one a minute (each stores a state).
    static let startLimit = (interval: TimeInterval(60), burst: 10)

    /// What the journey is told after a round trip that did not complete the step.
    enum Setback: String, Sendable {
        case denied, failed, expired, missing
    }

    /// Where a callback sends the browser back to: the journey, in the page's language, with the
    /// reason when the step is still pending.
    struct Landing: Equatable, Sendable {
        let verificationID: ObjectID
        let setback: Setback?
        let language: String?
    }

    /// Where a callback leads.
    enum Outcome: Equatable, Sendable {
        /// Back to the journey after using the state; with a setback the step is still pending
        /// and can be retried.
        case journey(Landing)
        /// Back to the journey without using the state (used, expired or another browser's):
        /// this browser's nonce is kept, in case its own round trip is still under way.
        case stale(Landing)
        /// A state that was never issued: nothing to go back to.
        case rejected
    }

    /// The languages the journey speaks (its `?lang=`).
    static let languages: Set<String> = ["en", "hi"]

    /// Starts a round trip for the step (or the first pending DigiLocker step); returns the consent
    /// URL and the nonce for this browser's cookie.
    func start(_ verification: Verification, stepID requested: String?, language: String?, log: RequestLog) throws -> (authorizeURL: String, nonce: String) {
        guard let provider = provider(for: verification) else {
            log.error("DigiLocker step started but DigiLocker is not configured (HOSTED_DIGILOCKER_*)")
            throw DomainError.unavailable(detail: "DigiLocker cannot be reached from here just now. Please try again later.",
                                          code: .digilockerUnavailable, retryAfterSeconds: 60)
        }
        guard verification.status.isEditable else {
            throw DomainError.conflict(detail: "This verification is \(verification.status.rawValue).", code: .verificationClosed)
        }
        let candidate: StepState? = if let requested {
            verification.steps.first { $0.id == requested }
        } else {
            verification.steps.first { $0.type == .digilocker && $0.completedAt == nil }
        }
        guard let step = candidate, step.type == .digilocker else { throw DomainError.notFound(what: "step") }
        guard step.completedAt == nil else { throw DomainError.conflict(detail: "This step is already complete.", code: .stepCompleted) }
        let now = clock.now()
        let allowance = try rateLimits.take(bucket: "digilocker-start:\(verification.id.rawValue)", at: now,
                                            interval: Self.startLimit.interval, burst: Self.startLimit.burst)
        guard allowance.allowed else {
            throw DomainError.rateLimited(detail: "Please wait a minute before opening DigiLocker again.",
                                          retryAfterSeconds: allowance.retryAfterSeconds)
        }
        let state = BearerSecret(using: random)
        let nonce = BearerSecret(using: random)
        try store.insertState(stateHash: Digest.sha256Hex(state.value), verificationID: verification.id, stepID: step.id,
                              nonceHash: Digest.sha256Hex(nonce.value), language: language,
                              at: now, expiresAt: now.addingTimeInterval(Self.stateLifetime))
        let verifier = PKCE.verifier(key: key.bytes(), state: state.value)
        return (provider.authorizeURL(state: state.value, challenge: PKCE.challenge(for: verifier)), nonce.value)
    }

    /// Handles the provider's redirect back. Only the browser that started the round trip, once,
    /// within the state's lifetime, gets the step completed.
    func finish(state text: String?, nonce: String?, code: String?, error: String?, log: RequestLog) throws -> Outcome {
        guard let text, let state = BearerSecret(presented: text) else { return .rejected }
        let stateHash = Digest.sha256Hex(state.value)
        guard let issuedFor = try store.target(stateHash: stateHash) else { return .rejected }
        guard let nonce = nonce.flatMap(BearerSecret.init(presented:)),
              let target = try store.consumeState(stateHash: stateHash, nonceHash: Digest.sha256Hex(nonce.value), at: clock.now())
        else { return try stale(issuedFor) }
        func back(_ setback: Setback?) -> Outcome {
            .journey(Landing(verificationID: target.verificationID, setback: setback, language: target.language))
        }
        if let error { return back(error == "access_denied" ? .denied : .failed) }
        guard let code, !code.isEmpty, code.utf8.count <= 2048,
              let verification = try journey.verifications.verification(id: target.verificationID),
              let provider = provider(for: verification)
        else { return back(.failed) }
        do {
            let requested = try journey.definition(of: target.stepID, in: verification).documents ?? ["aadhaar"]
            let documents = try fetchDocuments(requested, provider: provider, code: code, stateValue: state.value)
            return back(complete(verification, stepID: target.stepID,
                                 documents: try documents.map { Array(try JSONCoding.encoder.encode($0)) }, log: log))
        } catch let failure as DigiLockerProvider.Failure {
            log.error("DigiLocker round trip for \(target.verificationID) failed: \(failure)")
            return back(failure.missingDocument == nil ? .failed : .missing)
        }
    }

    /// A used, expired or other browser's state: back to the journey, which shows where things
    /// stand ("expired" while the step is still pending).
    private func stale(_ target: DigiLockerStore.StateTarget) throws -> Outcome {
        guard let verification = try journey.verifications.verification(id: target.verificationID) else { return .rejected }
        let pending = verification.steps.contains { $0.id == target.stepID && $0.completedAt == nil }
        return .stale(Landing(verificationID: target.verificationID,
                              setback: pending && verification.status.isEditable ? .expired : nil, language: target.language))
    }

    /// Who gives `verification` its documents: DigiLocker for live data, the simulator for test data.
    private func provider(for verification: Verification) -> DigiLockerProvider? {
        verification.livemode ? provider : testProvider
    }

    /// Whether the simulator may grant consent for this round trip's `state`: always in dev mode,
    /// otherwise only for a state issued to a test verification (so the simulator, served
    /// without dev mode for test mode, is of no use for anything else).
    func simulatorAdmits(state text: String, devMode: Bool) throws -> Bool {
        if devMode { return true }
        guard let state = BearerSecret(presented: text),
              let target = try store.target(stateHash: Digest.sha256Hex(state.value)),
              let verification = try journey.verifications.verification(id: target.verificationID)
        else { return false }
        return !verification.livemode
    }

    /// Exchanges the code (PKCE), then fetches and reads each requested document.
    private func fetchDocuments(_ requested: [String], provider: DigiLockerProvider, code: String,
                                stateValue: String) throws -> [DigiLockerDocument] {
        let token = try provider.exchange(code: code, verifier: PKCE.verifier(key: key.bytes(), state: stateValue))
        return try requested.map { name in
            guard let document = DigiLockerDocument.parse(xml: try provider.fetch(name, token: token), as: name) else {
                throw DigiLockerProvider.Failure(description: "\(name): the document could not be read")
            }
            return document
        }
    }

    /// Stores each document as a JSON artifact and completes the step, in one transaction; a
    /// setback if the store failed.
    private func complete(_ verification: Verification, stepID: String, documents contents: [[UInt8]], log: RequestLog) -> Setback? {
        do {
            _ = try journey.changeStep(verification, stepID) { step, current, connection in
                step.artifacts = []
                for content in contents {
                    let id = ObjectID(.artifact, using: random)
                    try journey.artifacts.insert(id: id, verificationID: current.id, stepID: stepID,
                                                 contentType: "application/json", content: content, at: clock.now(), on: connection)
                    step.artifacts.append(id.rawValue)
                }
                step.completedAt = clock.now()
            }
        } catch let error as DomainError {
            // Closed meanwhile, or completed by another tab's round trip: the journey shows which.
            log.error("DigiLocker documents for \(verification.id) not stored: \(error)")
        } catch {
            log.error("DigiLocker documents for \(verification.id) not stored: \(String(reflecting: error))")
            return .failed
        }
        return nil
    }
}
