import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedStorage

/// What the command line does to an account's return URLs and workflows: the same rules as the
/// API (one `ReturnURLRegistry`), and the API's JSON shapes on stdout.
public struct AccountAdministration: Sendable {
    let accounts: AccountStore
    let registry: ReturnURLRegistry
    let workflows: WorkflowStore
    let database: any Database

    public init(database: any Database, devMode: Bool, clock: any WallClock = SystemWallClock(),
                random: any RandomSource = SecureRandom()) {
        self.database = database
        accounts = AccountStore(database: database)
        registry = ReturnURLRegistry(store: ReturnURLStore(database: database), policy: ReturnURLPolicy(devMode: devMode),
                                     random: random, clock: clock)
        workflows = WorkflowStore(database: database)
    }

    /// The account, or `DomainError.notFound` (exit 65) for an id that is malformed or unknown.
    func account(_ text: String) throws -> ObjectID {
        guard let id = ObjectID(.account, parsing: text), try accounts.exists(id) else { throw DomainError.notFound(what: "account") }
        return id
    }

    public func listReturnURLs(account text: String) throws -> [UInt8] {
        let all = try registry.list(accountID: try account(text))
        return try encode(APIObjects.ListBody(url: "/v1/return_urls", has_more: false, data: all.map(ReturnURLRoutes.body)))
    }

    /// The registered URL's JSON, and whether it is new.
    public func addReturnURL(account text: String, url: String) throws -> (json: [UInt8], created: Bool) {
        let (registered, created) = try registry.register(accountID: try account(text), url: url)
        return (try encode(ReturnURLRoutes.body(registered)), created)
    }

    public func removeReturnURL(account text: String, id: String) throws -> [UInt8] {
        guard let returnURLID = ObjectID(.returnURL, parsing: id), try registry.remove(accountID: try account(text), id: returnURLID) else {
            throw DomainError.notFound(what: "return URL")
        }
        return try encode(APIObjects.DeletedBody(object: "return_url", id: returnURLID.rawValue))
    }

    public func listWorkflows(account text: String) throws -> [UInt8] {
        let all = try workflows.latestWorkflows(accountID: try account(text))
        return try encode(APIObjects.ListBody(url: "/v1/workflows", has_more: false, data: all.map(APIObjects.WorkflowBody.init)))
    }

    public func showWorkflow(account text: String, key: String, version: Int?) throws -> [UInt8] {
        guard let workflow = try workflows.workflow(accountID: try account(text), key: key, version: version) else {
            throw DomainError.notFound(what: "workflow")
        }
        return try encode(APIObjects.WorkflowBody(workflow))
    }

    private func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try JSONCoding.encoder.encode(value))
    }
}
