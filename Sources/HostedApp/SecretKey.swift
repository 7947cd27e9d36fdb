import Foundation
import HostedCore
import HostedStorage

/// The service's secret key (pepper of SMS-code HMACs): `HOSTED_SECRET_KEY`, else a random key
/// generated into the database on first use, so every process sharing it agrees.
///
/// `@unchecked Sendable`: `cached` is only touched while holding `lock`.
final class SecretKey: @unchecked Sendable {
    private let configured: String?
    private let settings: SettingsStore
    private let random: any RandomSource
    private let lock = NSLock()
    private var cached: [UInt8]?

    init(configured: String?, settings: SettingsStore, random: any RandomSource) {
        self.configured = configured
        self.settings = settings
        self.random = random
    }

    func bytes() throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let value = try configured ?? settings.valueOrInsert("secret_key", candidate: Base64URL.encode(random.bytes(32)))
        let key = Array(value.utf8)
        cached = key
        return key
    }
}
