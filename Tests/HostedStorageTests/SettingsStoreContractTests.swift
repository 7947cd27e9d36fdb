import Dispatch
import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// Service-wide settings below HTTP, on SQLite and PostgreSQL: the first value stored for a key
/// stays, whoever asks and however many ask at once.
@Suite struct SettingsStoreContractTests {
    @Test(arguments: Backend.allCases)
    func theFirstValueStays(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { (db: any Database) throws in
            let store = SettingsStore(database: db)
            #expect(try store.valueOrInsert("node_name", candidate: "first") == "first")
            #expect(try store.valueOrInsert("node_name", candidate: "second") == "first")
            // Another process (another store on the same database) finds the same.
            #expect(try SettingsStore(database: db).valueOrInsert("node_name", candidate: "third") == "first")
        }
    }

    @Test(arguments: Backend.allCases)
    func keysAreIndependent(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { (db: any Database) throws in
            let store = SettingsStore(database: db)
            #expect(try store.valueOrInsert("a", candidate: "value-a") == "value-a")
            #expect(try store.valueOrInsert("b", candidate: "value-b") == "value-b")
            #expect(try store.valueOrInsert("A", candidate: "value-A") == "value-A")
            #expect(try store.valueOrInsert("a", candidate: "other") == "value-a")
        }
    }

    @Test(arguments: Backend.allCases)
    func parallelFirstStartsAllGetOneValue(_ backend: Backend) throws {
        try withMigratedDatabase(backend, poolSize: 8) { (db: any Database) throws in
            let store = SettingsStore(database: db)
            let values = Collected<String>()
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                do {
                    values.append(try store.valueOrInsert("shared", candidate: "candidate-\(index)"))
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(values.all.count == 16)
            let kept = try #require(values.all.first)
            #expect(values.all.allSatisfy { $0 == kept })
            #expect(kept.hasPrefix("candidate-"))
            #expect(try store.valueOrInsert("shared", candidate: "late") == kept)
        }
    }
}
