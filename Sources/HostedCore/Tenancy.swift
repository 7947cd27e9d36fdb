/// Whose data a caller sees: one account, in one mode. A test key (`sk_test_…`) sees only the
/// account's test data and a live key only its live data; workflows, return URLs and branding
/// are shared by both modes (docs/test-mode.md).
public struct Tenancy: Hashable, Sendable {
    public let accountID: ObjectID
    /// False for test mode.
    public let livemode: Bool

    public init(accountID: ObjectID, livemode: Bool) {
        self.accountID = accountID
        self.livemode = livemode
    }

    /// Whether `verification` belongs to this tenancy.
    public func owns(_ verification: Verification) -> Bool {
        verification.accountID == accountID && verification.livemode == livemode
    }
}

extension Verification {
    /// The account and mode it belongs to.
    public var tenancy: Tenancy { Tenancy(accountID: accountID, livemode: livemode) }
}
