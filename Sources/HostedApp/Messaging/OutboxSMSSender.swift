import Foundation
import FoundationNetworking
import HostedCore
import HostedCrypto
import HostedStorage

/// Dev mode: messages go to the outbox table, shown by `hosted outbox` and `GET /dev/outbox`.
struct OutboxSMSSender: SMSSender {
    let store: SignInStore
    let clock: any WallClock
    let random: any RandomSource

    func send(to number: String, body: String) throws {
        try store.addToOutbox(id: ObjectID(.message, using: random), to: number, body: body, at: clock.now())
    }

    func send(to number: String, body: String, verificationID: String) throws {
        try store.addToOutbox(id: ObjectID(.message, using: random), to: number, body: body, at: clock.now(),
                              verificationID: verificationID)
    }
}
