import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// The stores as the tests make them: sealing with a key of the tests' own (the service derives
/// its keys from `HOSTED_SECRET_KEY`); `PersonalDataSealingTests` checks what is sealed.
extension PersonalSealing {
    public static let testing = PersonalSealing(secretKey: Array("hosted-tests-secret-key-0123456789".utf8), random: SecureRandom())
}

extension VerificationStore {
    public init(database: any Database, changes: any ChangeFeed, events: EventStore? = nil, clock: any WallClock = SystemWallClock(),
         memos: Memos = Memos()) {
        self.init(database: database, changes: changes, sealing: .testing, events: events, clock: clock, memos: memos)
    }
}

extension IdempotencyStore {
    public init(database: any Database) { self.init(database: database, sealing: .testing) }
}

extension ReviewNoteStore {
    public init(database: any Database) { self.init(database: database, sealing: .testing) }
}

extension ArtifactStore {
    public init(database: any Database, objects: ObjectArtifactBackend? = nil) {
        self.init(database: database, keys: PersonalSealing.testing.keys, objects: objects)
    }
}
