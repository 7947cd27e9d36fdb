/// Where a continuation (a link to continue on another device) is in its short life:
/// `pending` (shown, not yet opened) → `opened` (one device holds it and is asked for the
/// number) → `matched` (that device picked the right number and is signed in) or `failed` (it
/// picked a wrong one: the link is burnt) or `reported` (its user said "this wasn't me": burnt,
/// and the verification flagged). A new code or "continue here instead" ends a `pending` or
/// `opened` one as `revoked`. The store's statements move a row only along these
/// arrows, each guarded by the state it leaves.
public enum ContinuationStatus: String, Sendable, CaseIterable {
    case pending, opened, matched, failed, revoked, reported

    /// Not yet used to sign in: a new code or "continue here" ends it.
    public var isUnfinished: Bool { self == .pending || self == .opened }
}
