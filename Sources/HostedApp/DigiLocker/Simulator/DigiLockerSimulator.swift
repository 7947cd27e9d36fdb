import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// Dev mode only: the simulator's codes and tokens, each made here, stored only hashed, with a
/// short life (a code is burnt by its first use).
struct DigiLockerSimulator: Sendable {
    let store: DigiLockerStore
    let clock: any WallClock
    let random: any RandomSource

    static let codeLifetime: TimeInterval = 600
    static let tokenLifetime: TimeInterval = 3600

    /// A new authorization code for the consented request.
    func issueCode(clientID: String, redirectURI: String, codeChallenge: String) throws -> BearerSecret {
        let code = BearerSecret(using: random)
        let now = clock.now()
        try store.insertSimulatorCode(codeHash: Digest.sha256Hex(code.value), clientID: clientID, redirectURI: redirectURI,
                                      codeChallenge: codeChallenge, at: now, expiresAt: now.addingTimeInterval(Self.codeLifetime))
        return code
    }

    /// The request a live code was issued for; the code is burnt whatever happens next.
    func redeem(code: String) throws -> DigiLockerStore.SimulatorGrant? {
        try store.consumeSimulatorCode(codeHash: Digest.sha256Hex(code), at: clock.now())
    }

    /// A new access token.
    func issueToken() throws -> BearerSecret {
        let token = BearerSecret(using: random)
        let now = clock.now()
        try store.insertSimulatorToken(tokenHash: Digest.sha256Hex(token.value), at: now, expiresAt: now.addingTimeInterval(Self.tokenLifetime))
        return token
    }

    func isLive(token: BearerSecret) throws -> Bool {
        try store.simulatorTokenIsLive(tokenHash: Digest.sha256Hex(token.value), at: clock.now())
    }
}
