@testable import HostedStorage
import Testing

/// PostgreSQL's integer text is read in place: the reader agrees with `Int64(String)` on every
/// string of digits and signs PostgreSQL could send and many it never would, and refuses a `+`
/// (which PostgreSQL never writes).
@Suite struct IntegerTextTests {
    static func read(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBytes { PostgresConnection.integer($0) }
    }

    @Test(arguments: ["", "-", "0", "-0", "7", "-7", "0012", "9223372036854775807", "-9223372036854775808",
                      "9223372036854775808", "-9223372036854775809", "99999999999999999999", "1-", "--1", "1 ", " 1",
                      "1.5", "1e3", "0x1F", "١٢", "00000000000000000000001"])
    func agreesWithTheStandardLibrary(_ text: String) {
        #expect(Self.read(text) == Int64(text))
    }

    @Test func refusesAPlusSign() {
        #expect(Self.read("+1") == nil)
    }

    @Test func agreesOnRandomStrings() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("-0123456789x")
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...21, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if Self.read(text) != Int64(text) { disagreements.append(text) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
