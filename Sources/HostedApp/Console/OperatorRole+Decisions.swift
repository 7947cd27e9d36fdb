import HostedCore

/// Which console roles decide verifications. One rule for a decision and for "Ask for a retake":
/// sending a verification back is a decision about it, so a role that may not approve or reject
/// may not ask for a retake either. Every role decides today; the switch makes a new role say so.
extension OperatorRole {
    var decides: Bool {
        switch self {
        case .reviewer, .admin: true
        }
    }

    /// Throws `operator_role_required` (403) for a role that does not decide.
    static func requireDecides(_ op: Operator) throws {
        guard op.role.decides else {
            throw DomainError.forbidden(detail: "Your console role cannot decide verifications or ask for retakes.",
                                        code: .operatorRoleRequired)
        }
    }
}
