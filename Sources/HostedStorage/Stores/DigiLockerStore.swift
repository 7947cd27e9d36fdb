import Foundation
import HostedCore

/// DigiLocker round-trip states, and the dev simulator's codes and tokens. Single use is one
/// atomic `UPDATE … RETURNING`, so it holds across concurrent requests and processes.
public struct DigiLockerStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    // MARK: Round-trip states

    public func insertState(stateHash: String, verificationID: ObjectID, stepID: String, nonceHash: String, language: String?,
                            at time: Date, expiresAt: Date) throws {
        try database.query("""
            INSERT INTO digilocker_states (state_hash, verification_id, step_id, nonce_hash, language, created_at, expires_at)
            VALUES (\(stateHash), \(verificationID.rawValue), \(stepID), \(nonceHash), \(language), \(time), \(expiresAt))
            """)
    }

    /// Where a state leads back to: the verification's step, in the page's language.
    public struct StateTarget: Equatable, Sendable {
        public let verificationID: ObjectID
        public let stepID: String
        public let language: String?
    }

    /// Uses the state once, only from the browser holding its nonce and before it expires: one
    /// concurrent caller gets its target, everyone else nil. A wrong nonce leaves the state unused.
    public func consumeState(stateHash: String, nonceHash: String, at time: Date) throws -> StateTarget? {
        let rows = try database.query("""
            UPDATE digilocker_states SET used_at = \(time)
            WHERE state_hash = \(stateHash) AND nonce_hash = \(nonceHash) AND used_at IS NULL AND expires_at > \(time)
            RETURNING verification_id, step_id, language
            """)
        return try rows.first.flatMap(Self.target)
    }

    /// Where a state was issued for, used or not: where to send a browser whose state can no
    /// longer be used.
    public func target(stateHash: String) throws -> StateTarget? {
        try database.query("""
            SELECT verification_id, step_id, language FROM digilocker_states
            WHERE state_hash = \(stateHash)
            """).first.flatMap(Self.target)
    }

    private static func target(_ row: Row) throws -> StateTarget? {
        guard let id = ObjectID(.verification, parsing: try row.string("verification_id")) else { return nil }
        return StateTarget(verificationID: id, stepID: try row.string("step_id"), language: try row.optionalString("language"))
    }

    // MARK: Simulator (dev mode)

    public func insertSimulatorCode(codeHash: String, clientID: String, redirectURI: String, codeChallenge: String,
                                    at time: Date, expiresAt: Date) throws {
        try database.query("""
            INSERT INTO digilocker_sim_codes (code_hash, client_id, redirect_uri, code_challenge, created_at, expires_at)
            VALUES (\(codeHash), \(clientID), \(redirectURI), \(codeChallenge), \(time), \(expiresAt))
            """)
    }

    /// What an authorization code was issued for.
    public struct SimulatorGrant: Equatable, Sendable {
        public let clientID: String
        public let redirectURI: String
        public let codeChallenge: String
    }

    /// Uses a code once: whoever presents it first burns it, right verifier or not.
    public func consumeSimulatorCode(codeHash: String, at time: Date) throws -> SimulatorGrant? {
        let rows = try database.query("""
            UPDATE digilocker_sim_codes SET used_at = \(time)
            WHERE code_hash = \(codeHash) AND used_at IS NULL AND expires_at > \(time)
            RETURNING client_id, redirect_uri, code_challenge
            """)
        guard let row = rows.first else { return nil }
        return SimulatorGrant(clientID: try row.string("client_id"), redirectURI: try row.string("redirect_uri"),
                              codeChallenge: try row.string("code_challenge"))
    }

    public func insertSimulatorToken(tokenHash: String, at time: Date, expiresAt: Date) throws {
        try database.query("""
            INSERT INTO digilocker_sim_tokens (token_hash, created_at, expires_at)
            VALUES (\(tokenHash), \(time), \(expiresAt))
            """)
    }

    public func simulatorTokenIsLive(tokenHash: String, at time: Date) throws -> Bool {
        try !database.query("""
            SELECT 1 AS live FROM digilocker_sim_tokens
            WHERE token_hash = \(tokenHash) AND expires_at > \(time)
            """).isEmpty
    }
}
