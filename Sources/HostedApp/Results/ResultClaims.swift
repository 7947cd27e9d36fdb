import Foundation
import HostedCore

/// The claims of a signed result (docs/results.md): who signed (`iss`, the public URL), for
/// whom (`aud`, the account), about what (`sub`, the verification), what was true at return
/// (`status`, `workflow`, `livemode`), when (`iat`, `exp` = `iat` + 600), a unique `jti`, and the
/// `nonce` given at the handoff, if any. Written with sorted keys, so the same claims give the
/// same bytes.
struct ResultClaims: Equatable {
    let iss: String
    let aud: String
    let sub: String
    let status: String
    let workflow: String
    let livemode: Bool
    let iat: Int64
    let exp: Int64
    let jti: String
    let nonce: String?

    /// How long a result is good for: long enough for a slow page load, short enough that an old
    /// URL is not replayed as new.
    static let lifetime: Int64 = 600

    init(issuer: String, verification: Verification, nonce: String?, at time: Date, random: any RandomSource) {
        iss = issuer
        aud = verification.accountID.rawValue
        sub = verification.id.rawValue
        status = verification.status.rawValue
        workflow = verification.workflowKey
        livemode = verification.livemode
        iat = Int64(time.timeIntervalSince1970.rounded(.down))
        exp = iat + Self.lifetime
        jti = Base64URL.encode(random.bytes(16))
        self.nonce = nonce
    }

    /// The claims as JSON, keys sorted (as `JSONCoding.encoder` would write them), written by
    /// hand: a result is made on every submit, where an encoder cost several microseconds more.
    func json() -> [UInt8] {
        var object = JSONText.Object()
        object.string("aud", aud)
        object.int("exp", Int(exp))
        object.int("iat", Int(iat))
        object.string("iss", iss)
        object.string("jti", jti)
        object.bool("livemode", livemode)
        if let nonce { object.string("nonce", nonce) }
        object.string("status", status)
        object.string("sub", sub)
        object.string("workflow", workflow)
        return object.finish()
    }
}
