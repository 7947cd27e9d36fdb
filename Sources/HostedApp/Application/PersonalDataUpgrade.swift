import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// The upgrade to migration 0029 for the command line: seals the personal fields of rows written
/// before it with their verifications' data keys, as `serve` does before it answers anything.
public enum PersonalDataUpgrade {
    /// How many rows it sealed (0 when every row was sealed already, without asking for the secret
    /// key, which sealing needs).
    public static func sealUnsealed(configuration: Configuration, database: any Database,
                                    random: any RandomSource = SecureRandom()) throws -> Int {
        guard try VerificationStore.hasUnsealed(database) else { return 0 }
        let secretKey = try SecretKey.load(configuration, random: random)
        let store = VerificationStore(database: database, changes: LocalChangeFeed(),
                                      sealing: PersonalSealing(secretKey: secretKey.bytes(), random: random))
        var total = 0
        while case let sealed = try store.sealUnsealed(), sealed > 0 { total += sealed }
        return total
    }
}
