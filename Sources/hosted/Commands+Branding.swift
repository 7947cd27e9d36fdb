import Foundation
import HostedApp

/// `hosted accounts update`: the account's branding from the command line.
extension Commands {
    static let brandingOptions: Set<String> = ["--account", "--display-name", "--accent-color", "--support-url", "--logo"]

    static func updateAccount(_ parsed: CommandLineArguments) throws -> Int32 {
        guard let account = parsed.options["--account"] else { throw CommandLineArguments.UsageError(description: "--account is required") }
        let changes = ["--display-name", "--accent-color", "--support-url", "--logo"].filter { parsed.options[$0] != nil }
        guard !changes.isEmpty else {
            throw CommandLineArguments.UsageError(description: "give at least one of --display-name, --accent-color, --support-url, --logo")
        }
        var logo: [UInt8]?
        if let path = parsed.options["--logo"] {
            if path.isEmpty {
                logo = []
            } else {
                guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                    printError("cannot read the logo file \(path)")
                    return 66
                }
                logo = Array(data)
            }
        }
        let database = try openMigrated(parsed.configuration)
        defer { database.close() }
        let administration = AccountAdministration(database: database, devMode: parsed.configuration.devMode)
        printBytes(try administration.updateBranding(account: account, displayName: parsed.options["--display-name"],
                                                     accentColor: parsed.options["--accent-color"],
                                                     supportURL: parsed.options["--support-url"], logo: logo,
                                                     publicURL: parsed.configuration.publicURL))
        return 0
    }
}
