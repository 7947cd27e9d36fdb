/// Where a verification is in its life.
///
/// Three groupings of the statuses are used, each defined here and only here:
/// - `isClosed` / `isOpen`: a closed verification accepts no change at all; an open one can still
///   be worked on or decided (`submitted` is open: it waits for a decision).
/// - `isEditable`: the user can still work on it (and the customer change its details) —
///   `created` and `in_progress`. The journey page calls this `EDITABLE` (public/journey/*.js);
///   a test holds the page's list to this one.
/// - `holdsUserSlot`: it is *the* verification of its user and workflow, so a create returns it
///   instead of making another — every status but `canceled` and `expired` (a decided one is
///   still the answer for its user). The database enforces it with the partial unique index
///   `verifications_open`, whose predicate must be exactly `holdsUserSlotSQL` (tested).
public enum VerificationStatus: String, Sendable, CaseIterable, Codable {
    case created
    case inProgress = "in_progress"
    case submitted
    case approved
    case rejected
    case canceled
    case expired

    /// Closed verifications accept no change; a new one may be created for the same user and workflow.
    public var isClosed: Bool { [.approved, .rejected, .canceled, .expired].contains(self) }
    /// Details (mobile, return URL, metadata) can change only before the user submits.
    public var isEditable: Bool { self == .created || self == .inProgress }
    /// It is the verification a create for its user and workflow answers with.
    public var holdsUserSlot: Bool { self != .canceled && self != .expired }

    /// `holdsUserSlot` as SQL over a `status` column: the predicate of the `verifications_open`
    /// index, and of every query that must agree with it (PostgreSQL's `ON CONFLICT` names it).
    public static let holdsUserSlotSQL: String = {
        let released = allCases.filter { !$0.holdsUserSlot }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return "status NOT IN (\(released))"
    }()
}
