import Foundation
import HostedCore
import HostedStorage

/// An account's registered return URLs: the rules shared by the API, the command line and the
/// journey (which redirects only to a URL that is still registered when the user submits).
struct ReturnURLRegistry: Sendable {
    let store: ReturnURLStore
    let policy: ReturnURLPolicy
    let random: any RandomSource
    let clock: any WallClock

    func list(accountID: ObjectID) throws -> [ReturnURLStore.Registered] {
        try store.list(accountID: accountID)
    }

    /// Registers `url` (checked by the policy); the existing entry when it is already registered
    /// in another spelling (host case, default port). `created` is false then.
    func register(accountID: ObjectID, url text: String) throws -> (ReturnURLStore.Registered, created: Bool) {
        let accepted = try policy.validate(text)
        if let existing = try store.list(accountID: accountID).first(where: { (try? policy.validate($0.url).canonical) == accepted.canonical }) {
            return (existing, false)
        }
        return try store.add(accountID: accountID, id: ObjectID(.returnURL, using: random), url: accepted.url, at: clock.now())
    }

    func remove(accountID: ObjectID, id: ObjectID) throws -> Bool {
        try store.delete(accountID: accountID, id: id)
    }

    /// `url` if it is registered for the account right now, else nil: a URL removed after a
    /// verification or handoff named it is no longer a place to send the user.
    func stillRegistered(_ url: String?, accountID: ObjectID) throws -> String? {
        guard let url else { return nil }
        return (try? policy.requireRegistered(url, registered: try store.list(accountID: accountID).map(\.url))) != nil ? url : nil
    }
}
