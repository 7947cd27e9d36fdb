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

    // MARK: - Templates: text built once, values bound per call

    enum Slot: Hashable, Sendable { case accountID, userID, time, limit }

    @Test func aTemplateNumbersItsSlotsInOrderOfFirstUse() {
        let template: SQL.Template<Slot> = """
            SELECT id FROM verifications WHERE user_id = \(parameter: .userID) AND account_id = \(parameter: .accountID) LIMIT \(parameter: .limit)
            """
        #expect(template.text == "SELECT id FROM verifications WHERE user_id = $1 AND account_id = $2 LIMIT $3")
        #expect(template.parameters == [.userID, .accountID, .limit])
    }

    @Test func aSlotUsedTwiceIsOnePlaceholderAndOneValue() {
        let template: SQL.Template<Slot> = """
            SELECT \(parameter: .time), \(parameter: .accountID) WHERE a < \(parameter: .time) AND b = \(parameter: .accountID) AND c > \(parameter: .time)
            """
        #expect(template.text == "SELECT $1, $2 WHERE a < $1 AND b = $2 AND c > $1")
        let sql = template.bind { slot in
            switch slot {
            case .time: .integer(1000)
            case .accountID: "acc_1"
            case .userID, .limit: .null
            }
        }
        #expect(sql.bindings == [.integer(1000), .text("acc_1")])
    }

    @Test func bindGivesValuesInPlaceholderOrderAndKeepsTheText() {
        let template: SQL.Template<Slot> = """
            SELECT \(unsafeSQL: "id, name") FROM t WHERE limit_ = \(parameter: .limit) AND user_id = \(parameter: .userID) AND account_id = \(parameter: .accountID)
            """
        func bound(_ user: String) -> SQL {
            template.bind { slot in
                switch slot {
                case .accountID: "acc_1"
                case .userID: .text(user)
                case .limit: 5
                case .time: .null
                }
            }
        }
        let first = bound("Robert'); DROP TABLE t;--"), second = bound("u2")
        #expect(first.text == "SELECT id, name FROM t WHERE limit_ = $1 AND user_id = $2 AND account_id = $3")
        #expect(first.bindings == [.integer(5), .text("Robert'); DROP TABLE t;--"), .text("acc_1")])
        #expect(second.bindings == [.integer(5), .text("u2"), .text("acc_1")])
        // Every call runs the template's own text: one prepared statement, nothing built per call.
        #expect(first.text == template.text && second.text == template.text)
    }

    @Test func aTemplateInsideAnotherTakesItsSlotsAndSharesTheOnesItNames() {
        enum Inner: Hashable, Sendable { case bucket, now }
        enum Outer: Hashable, Sendable { case inner(Inner), id, now }
        let inner: SQL.Template<Inner> = "UPDATE b SET t = \(parameter: .now) WHERE bucket = \(parameter: .bucket) AND t < \(parameter: .now)"
        // The inner `now` is the outer one: one placeholder, wherever it first appears.
        let outer: SQL.Template<Outer> = """
            WITH x AS (\(inner, parameters: { $0 == .now ? .now : .inner($0) })) SELECT * FROM v WHERE id = \(parameter: .id) AND at = \(parameter: .now)
            """
        #expect(outer.text == "WITH x AS (UPDATE b SET t = $1 WHERE bucket = $2 AND t < $1) SELECT * FROM v WHERE id = $3 AND at = $1")
        #expect(outer.parameters == [.now, .inner(.bucket), .id])
        // A literal `$` or text beyond ASCII in a template is text, never a placeholder.
        let literal: SQL.Template<Outer> = "SELECT '₹$9' || \(parameter: .id), 'समय'"
        #expect(literal.text == "SELECT '₹$9' || $1, 'समय'" && literal.parameters == [.id])
    }

    @Test(arguments: Backend.allCases)
    func aBoundTemplateRunsOnBothStores(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.query("CREATE TABLE people (name TEXT, age BIGINT)")
            enum Person: Hashable, Sendable { case name, age }
            let insert: SQL.Template<Person> = "INSERT INTO people (name, age) VALUES (\(parameter: .name), \(parameter: .age))"
            let older: SQL.Template<Person> = """
                SELECT name FROM people WHERE age > CAST(\(parameter: .age) AS BIGINT) AND name <> \(parameter: .name) ORDER BY name
                """
            for (name, age) in [("ann", 30), ("bob", 40), ("x'); DROP TABLE people; --", 50)] as [(String, Int64)] {
                try db.query(insert.bind { $0 == .name ? .text(name) : .integer(age) })
            }
            let found = try db.query(older.bind { $0 == .name ? "bob" : .integer(20) }).map { try $0.string("name") }
            #expect(found == ["ann", "x'); DROP TABLE people; --"])
        }
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
