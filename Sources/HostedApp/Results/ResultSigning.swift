import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedStorage

/// The signed result on return and the keys behind it (issue 40, docs/results.md): the one front
/// door of the Results room. It signs the result the journey puts in the return URL's fragment,
/// the detached JWS of the evidence bundle, serves the JWKS, and rotates keys.
///
/// Keys live in `signing_keys` (sealed); this process keeps the newest one decoded and the JWKS
/// body serialised, and reads the table again at most every `refreshInterval` seconds (so a
/// rotation made by another node or by `hosted signing-keys rotate` is used everywhere within
/// that time, and a retired key leaves the JWKS within that time of its 7 days).
///
/// `@unchecked Sendable`: `loaded` is only read and written under `lock`; everything else is
/// immutable, and `ES256PrivateKey` may sign on many threads at once.
final class ResultSigning: @unchecked Sendable {
    let store: SigningKeyStore
    /// Seals private keys under a key derived from the service's secret key.
    let box: SecretBox
    /// The results' `iss`: the configured public URL.
    let issuer: String
    let clock: any WallClock
    /// Key ids and the sealing's nonces (straight from the source).
    let random: any RandomSource
    /// Each result's `jti`: the same source, drawn 4 KiB at a time (a `jti` is unique, not secret).
    let jtiRandom: BufferedRandom
    let log: any ServerLog
    /// `HOSTED_DISABLE_MEMOS=jwks` builds the JWKS body on every request (bench only).
    let keepsJWKS: Bool
    /// `HOSTED_BENCH_UNSIGNED_RESULTS=1`: the return URL carries no signed result (bench only).
    let signsResults: Bool
    /// `HOSTED_DISABLE_MEMOS=signing` makes the key's signing context and the result's encoded
    /// header for every signature (bench only): off, a loaded key keeps both.
    let keepsSigner: Bool

    /// The JWS `typ` of a result.
    static let resultType = "hosted-result+jwt"
    /// How long a rotated-out key stays in the JWKS.
    static let publishedFor: TimeInterval = 7 * 24 * 3600
    /// How often the keys are read again from the database.
    static let refreshInterval: TimeInterval = 10

    private let lock = NSLock()
    private var loaded: Loaded?

    /// What this process holds: the newest key, ready to sign, with a result's protected header
    /// in base64url (it names only the key), and the JWKS as served (its whole response, built
    /// once per read of the keys, as `/healthz` keeps its own).
    private struct Loaded {
        let kid: String
        let key: ES256PrivateKey
        let encodedResultHeader: [UInt8]
        let jwks: [UInt8]
        let response: Response
        let at: Date
    }

    init(store: SigningKeyStore, box: SecretBox, issuer: String, clock: any WallClock, random: any RandomSource, log: any ServerLog,
         keepsJWKS: Bool = true, signsResults: Bool = true, keepsSigner: Bool = true) {
        self.store = store
        self.box = box
        self.issuer = issuer
        self.clock = clock
        self.random = random
        jtiRandom = BufferedRandom(random)
        self.log = log
        self.keepsJWKS = keepsJWKS
        self.signsResults = signsResults
        self.keepsSigner = keepsSigner
    }

    /// The label of the key private keys are sealed under.
    static let boxLabel = "hosted/signing-keys/v1"

    // MARK: The front door

    /// `GET /.well-known/jwks.json`'s body: `{"keys":[…]}`, the newest key first.
    func jwks() throws -> [UInt8] {
        guard keepsJWKS else { return Self.body(try published(at: clock.now())) }
        return try current().jwks
    }

    /// `GET /.well-known/jwks.json`'s response: the body as JSON, cacheable for 5 minutes.
    func jwksResponse() throws -> Response {
        guard keepsJWKS else { return Self.response(Self.body(try published(at: clock.now()))) }
        return try current().response
    }

    static func response(_ body: [UInt8]) -> Response {
        Response(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "max-age=300")]), body: body)
    }

    /// The compact JWS of `verification`'s result as it is now (header `alg`, `kid`, `typ`;
    /// claims `ResultClaims`), signed by the newest key.
    func signResult(for verification: Verification, nonce: String?) throws -> String {
        let now = clock.now()
        let signer = try current()
        let claims = ResultClaims(issuer: issuer, verification: verification, nonce: nonce, at: now, random: jtiRandom)
        guard keepsSigner else {
            return try JWS.compact(header: JWS.header(kid: signer.kid, type: Self.resultType), payload: claims.json(), key: signer.key)
        }
        return try JWS.compact(encodedHeader: signer.encodedResultHeader, payload: claims.json(), key: signer.key)
    }

    /// A detached JWS (RFC 7515 appendix F, header `{"alg":"ES256","kid":…}`) over `payload`,
    /// signed by the newest key: what the evidence bundle's `manifest.json.jws` holds.
    func detachedSignature(over payload: [UInt8]) throws -> String {
        let signer = try current()
        return try JWS.detached(header: JWS.header(kid: signer.kid), payload: payload, key: signer.key)
    }

    /// The return URL's fragment value, or nil when signing is switched off for a benchmark or
    /// failed (logged): a URL without a result is one the customer polls for, never a wrong one.
    func fragment(for verification: Verification, nonce: String?) -> String? {
        guard signsResults else { return nil }
        do {
            return try signResult(for: verification, nonce: nonce)
        } catch {
            log.error("signed result for \(verification.id) not made: \(error)", requestID: nil)
            return nil
        }
    }

    /// Makes the first key unless one exists (at start; any number of nodes at once).
    func ensureKey() throws {
        if try published(at: clock.now()).contains(where: { $0.retiredAt == nil }) { return }
        try store.insertFirst(try newKey(), at: clock.now())
    }

    /// Adds a key that signs from now on; the previous one stays in the JWKS for 7 days.
    func rotate() throws -> (kid: String, previous: String?) {
        var attempt = 0
        while true {
            let key = try newKey()
            do {
                let previous = try store.rotate(to: key, at: clock.now())
                lock.withLock { loaded = nil }
                return (key.id, previous)
            } catch DatabaseError.uniqueViolation where attempt < 3 {
                attempt += 1  // another rotation took this generation: take the next
            }
        }
    }

    // MARK: Keys

    /// The keys the JWKS shows now (the database's view).
    private func published(at now: Date) throws -> [SigningKeyStore.StoredKey] {
        try store.published(at: now, window: Self.publishedFor)
    }

    /// The loaded keys, read again when older than `refreshInterval` (or the clock went back).
    private func current() throws -> Loaded {
        let now = clock.now()
        return try lock.withLock {
            if let loaded, now >= loaded.at, now.timeIntervalSince(loaded.at) < Self.refreshInterval { return loaded }
            var keys = try published(at: now)
            if !keys.contains(where: { $0.retiredAt == nil }) {
                // First need on a database no serve started on: make the first key.
                try store.insertFirst(try newKey(), at: now)
                keys = try published(at: now)
            }
            guard let newest = keys.first(where: { $0.retiredAt == nil }) else { throw Unusable(reason: "no signing key") }
            let key = if let loaded, loaded.kid == newest.id { loaded.key } else { try open(newest) }
            let body = Self.body(keys)
            var header: [UInt8] = []
            Base64URL.append(JWS.header(kid: newest.id, type: Self.resultType), to: &header)
            let fresh = Loaded(kid: newest.id, key: key, encodedResultHeader: header, jwks: body, response: Self.response(body), at: now)
            loaded = fresh
            return fresh
        }
    }

    /// `{"keys":[…]}` from the stored JWKs, newest first.
    static func body(_ keys: [SigningKeyStore.StoredKey]) -> [UInt8] {
        Array(("{\"keys\":[" + keys.map(\.publicJWK).joined(separator: ",") + "]}").utf8)
    }

    /// A fresh key, sealed for its row, with its JWK.
    private func newKey() throws -> SigningKeyStore.NewKey {
        let id = "sig_" + Base32.encode(random.bytes(16))
        let key = try ES256PrivateKey.generate()
        let sealed = try box.seal(try key.derRepresentation(), context: Self.sealContext(id), random: random.bytes(12))
        let jwk = String(decoding: try JSONCoding.encoder.encode(key.publicKey.jwk(kid: id)), as: UTF8.self)
        return SigningKeyStore.NewKey(id: id, privateKeySealed: Data(sealed).base64EncodedString(), publicJWK: jwk)
    }

    /// A stored key's private key; it must open under this secret key and for its own row.
    private func open(_ stored: SigningKeyStore.StoredKey) throws -> ES256PrivateKey {
        guard let text = stored.privateKeySealed, let sealed = Data(base64Encoded: text),
              let der = box.open(Array(sealed), context: Self.sealContext(stored.id))
        else { throw Unusable(reason: "signing key \(stored.id) does not open with this secret key") }
        return try ES256PrivateKey(der: der, reusesContexts: keepsSigner)
    }

    /// What a sealed key is bound to: its own row.
    static func sealContext(_ id: String) -> String { "signing_keys:" + id }

    /// Thrown when no key can sign (a node whose secret key differs from the one that sealed it).
    struct Unusable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
