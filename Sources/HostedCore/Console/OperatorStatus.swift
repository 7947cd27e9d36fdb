/// `invited` until the setup link is used (no password, no TOTP yet), then `active`, until an
/// admin or `hosted operators disable` makes it `disabled` for good.
public enum OperatorStatus: String, Sendable, CaseIterable {
    case invited, active, disabled
}
