import HostedCore
import HostedHTTP

/// The console's "Test data" switch: an operator sees the account's live data unless the page
/// set `hosted_console_mode=test` (`console-mode-test`), and then only its test data, under a
/// banner. The cookie holds no secret and grants nothing: the operator's session decides whose
/// data it is, the switch only which mode of it.
enum ConsoleMode {
    static let cookieName = "hosted_console_mode"

    /// The account and mode a console request looks at.
    static func tenancy(_ op: Operator, _ request: Request) -> Tenancy {
        Tenancy(accountID: op.accountID, livemode: request.cookie(cookieName) != "test")
    }
}
