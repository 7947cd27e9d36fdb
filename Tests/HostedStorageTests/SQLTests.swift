import Foundation
import HostedStorage
import Testing

/// Statements safe by construction: an interpolated value is always a bind parameter.
@Suite struct SQLTests {
    @Test func interpolatedValuesBecomeNumberedParameters() {
        let name = "Robert'); DROP TABLE accounts;--"
        let sql: SQL = "SELECT id FROM accounts WHERE name = \(name) AND created_at < \(Date(timeIntervalSince1970: 1)) LIMIT \(5)"
        #expect(sql.text == "SELECT id FROM accounts WHERE name = $1 AND created_at < $2 LIMIT $3")
        #expect(sql.bindings == [.text(name), .integer(1000), .integer(5)])
    }

    @Test func optionalsBindNullAndListsBindEachValue() {
        let missing: String? = nil
        let sql: SQL = "INSERT INTO t VALUES (\(values: [.text("a"), .integer(2), .null]), \(missing))"
        #expect(sql.text == "INSERT INTO t VALUES ($1, $2, $3, $4)")
        #expect(sql.bindings == [.text("a"), .integer(2), .null, .null])
    }

    @Test func onlyTheNamedRawFormSplicesText() {
        let columns = "id, name"
        let sql: SQL = "SELECT \(unsafeSQL: columns) FROM accounts WHERE id = \(columns)"
        #expect(sql.text == "SELECT id, name FROM accounts WHERE id = $1")
        #expect(sql.bindings == [.text(columns)])
    }

    @Test func aFragmentKeepsItsValuesWithRenumberedPlaceholders() {
        let fragment: SQL = "(\(7) + \(8))"
        let sql: SQL = "SELECT \(1), \(fragment), \(fragment)"
        #expect(sql.text == "SELECT $1, ($2 + $3), ($4 + $5)")
        #expect(sql.bindings == [.integer(1), .integer(7), .integer(8), .integer(7), .integer(8)])
    }

    @Test func renumberingKeepsTextAroundPlaceholdersIntact() {
        // Twelve values: two-digit placeholders, a `$` that is not one, and text beyond ASCII.
        let twelve: SQL = "SELECT '₹$' || \(values: (1...12).map { SQLValue.integer(Int64($0)) }), 'समय'"
        #expect(twelve.text.hasSuffix("$10, $11, $12, 'समय'"))
        let sql: SQL = "SELECT \(0), \(1), \(twelve) WHERE x = \(99)"
        #expect(sql.text == "SELECT $1, $2, SELECT '₹$' || $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'समय' WHERE x = $15")
        #expect(sql.bindings == [.integer(0), .integer(1)] + (1...12).map { SQLValue.integer(Int64($0)) } + [.integer(99)])
        // First in its statement, a fragment keeps its numbers.
        let first: SQL = "WITH x AS (\(twelve)) SELECT \(13)"
        #expect(first.text == "WITH x AS (\(twelve.text)) SELECT $13")
    }

    @Test(arguments: Backend.allCases)
    func aHostileValueIsDataOnBothStores(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.query("CREATE TABLE people (name TEXT)")
            let hostile = "x'); DROP TABLE people; --"
            try db.query("INSERT INTO people (name) VALUES (\(hostile))")
            #expect(try db.query("SELECT name FROM people WHERE name = \(hostile)").map { try $0.string("name") } == [hostile])
        }
    }
}
