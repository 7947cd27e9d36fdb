import Foundation
import HostedApp
import HostedCore
import HostedStorage

extension Commands {
    static let operatorsHelp = """
        Usage: hosted operators create --account ACCOUNT_ID --email EMAIL --role reviewer|admin
               hosted operators list --account ACCOUNT_ID
               hosted operators disable OPERATOR_ID
               hosted operators reset OPERATOR_ID

        People who review verifications in the console (/console). `create` prints
          {"operator_id": "op_…", "setup_url": "…/console/setup#token=…", …}
        — send the setup URL to the person: it works once, for 24 hours, and sets their password
        (at least 12 characters, not a common one) and their authenticator app (TOTP).
        `list` prints {"object":"list","data":[…]}. `disable` ends the operator's sessions at once
        and for good. `reset` issues a new setup link (lost authenticator, forgotten password):
        the old password, authenticator and sessions stop working.
        """

    static func operators(_ arguments: [String], _ environment: [String: String]) throws -> Int32 {
        let parsed = try CommandLineArguments(arguments, environment: environment, optionNames: ["--account", "--email", "--role"])
        if parsed.wantsHelp { print(operatorsHelp); return 0 }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let console = try ConsoleService.open(parsed.configuration, database: database)
        func account() throws -> ObjectID {
            guard let text = parsed.options["--account"], let id = ObjectID(.account, parsing: text),
                  try AccountStore(database: database).exists(id)
            else { throw CommandLineArguments.UsageError(description: "--account must be the id of an account (acct_…)") }
            return id
        }
        func operatorID() throws -> ObjectID {
            guard parsed.positionals.count == 2, let id = ObjectID(.operator, parsing: parsed.positionals[1]) else {
                throw CommandLineArguments.UsageError(description: "usage: hosted operators \(parsed.positionals[0]) OPERATOR_ID (op_…)")
            }
            return id
        }
        switch parsed.positionals.first {
        case "create":
            guard let email = parsed.options["--email"] else { throw CommandLineArguments.UsageError(description: "--email is required") }
            guard let role = parsed.options["--role"].flatMap(OperatorRole.init(rawValue:)) else {
                throw CommandLineArguments.UsageError(description: "--role must be reviewer or admin")
            }
            let (op, url) = try console.create(accountID: try account(), email: email, role: role)
            var output = ConsoleService.summary(op)
            output["setup_url"] = url
            try printJSON(output)
        case "list":
            let list = try console.list(accountID: try account()).map(ConsoleService.summary)
            let json = try JSONSerialization.data(withJSONObject: ["object": "list", "data": list] as [String: Any],
                                                  options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: json, as: UTF8.self))
        case "disable":
            try printJSON(ConsoleService.summary(try console.disable(id: try operatorID())))
        case "reset":
            let (op, url) = try console.reissueSetup(id: try operatorID())
            var output = ConsoleService.summary(op)
            output["setup_url"] = url
            try printJSON(output)
        default:
            return usageError(operatorsHelp)
        }
        return 0
    }
}
