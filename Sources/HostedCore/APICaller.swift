/// Who an API request is: the account of its key, the key (the actor of the events it causes)
/// and the key's mode.
public struct APICaller: Equatable, Sendable {
    public let account: Account
    public let keyID: ObjectID
    /// False for a test key.
    public let livemode: Bool

    public init(account: Account, keyID: ObjectID, livemode: Bool) {
        self.account = account
        self.keyID = keyID
        self.livemode = livemode
    }

    /// The data this caller sees: its account's, in its key's mode.
    public var tenancy: Tenancy { Tenancy(accountID: account.id, livemode: livemode) }
}
