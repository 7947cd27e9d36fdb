/// What an operator may do in the console: reviewers work the queue and decide; admins also
/// manage the account's operators.
public enum OperatorRole: String, Sendable, CaseIterable {
    case reviewer, admin
}
