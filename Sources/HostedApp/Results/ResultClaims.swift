import Foundation
import HostedCore

/// The claims of a signed result (docs/results.md): who signed (`iss`, the public URL), for
/// whom (`aud`, the account), about what (`sub`, the verification), what was true at return
/// (`status`, `workflow`, `livemode`), when (`iat`, `exp` = `iat` + 600), a unique `jti`, and the
/// `nonce` given at the handoff, if any. Encoded with sorted keys, so the same claims give the
/// same bytes.
struct ResultClaims: Encodable, Equatable {
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

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(aud, forKey: .aud)
        try container.encode(sub, forKey: .sub)
        try container.encode(status, forKey: .status)
        try container.encode(workflow, forKey: .workflow)
        try container.encode(livemode, forKey: .livemode)
        try container.encode(iat, forKey: .iat)
        try container.encode(exp, forKey: .exp)
        try container.encode(jti, forKey: .jti)
        try container.encodeIfPresent(nonce, forKey: .nonce)
    }

    enum CodingKeys: String, CodingKey { case iss, aud, sub, status, workflow, livemode, iat, exp, jti, nonce }
}
