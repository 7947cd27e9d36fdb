import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage

/// The wired service: store, services and the HTTP responder. `main` and the tests build it the
/// same way, through `buildApplication(configuration:)`.
public struct Application: Sendable {
    public let configuration: Configuration
    public let database: any Database
    public let migrator: Migrator
    public let accounts: AccountService
    public let responder: any HTTPResponder
    public let log: any ServerLog

    /// A server for this application on the configured address.
    public func makeServer() -> HTTPServer {
        HTTPServer(configuration: .init(host: configuration.listen.host, port: configuration.listen.port,
                                        threads: configuration.threads),
                   responder: responder, log: log)
    }
}

/// Opens the store, applies pending migrations (when `migrate` is true) and builds the routes.
public func buildApplication(configuration: Configuration, migrate: Bool = true,
                             log: any ServerLog = StandardErrorLog(),
                             clock: any WallClock = SystemWallClock(),
                             random: any RandomSource = SecureRandom()) throws -> Application {
    let database = try configuration.database.open(poolSize: configuration.databasePoolSize)
    let migrator = try Migrator(dialect: database.dialect)
    if migrate { try migrator.migrate(database, clock: clock) }
    let accounts = AccountService(database: database, clock: clock, random: random)

    var routes = Router.Builder()
    HealthRoutes(database: database, migrator: migrator).register(in: &routes)
    AccountRoutes(accounts: accounts).register(in: &routes)
    AssetRoutes(files: StaticFiles(root: configuration.publicDirectory)).register(in: &routes)

    return Application(configuration: configuration, database: database, migrator: migrator, accounts: accounts,
                       responder: ErrorBoundary(next: routes.build(), log: log), log: log)
}
