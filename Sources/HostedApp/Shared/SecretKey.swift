import Foundation
import HostedCore
import HostedStorage

/// The service's secret key: the pepper of SMS-code HMACs, the PKCE verifier's key, and the root
/// of the keys that encrypt what must be recoverable (queued SMS messages; later webhook signing
/// secrets and TOTP seeds). It never lives in the database it protects, so a dump alone decrypts
/// nothing: it is `HOSTED_SECRET_KEY`, else the contents of `HOSTED_SECRET_KEY_FILE` — which is
/// created (mode 0600) on first start with SQLite or in dev mode, and must already exist with
/// PostgreSQL in production, where every node must share it.
struct SecretKey: Sendable {
    private let material: [UInt8]

    init(material: [UInt8]) {
        self.material = material
    }

    func bytes() -> [UInt8] { material }
}
