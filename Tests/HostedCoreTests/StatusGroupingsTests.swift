import Foundation
import HostedCore
import Testing

/// The groupings of `VerificationStatus` are defined once, in the core; the SQL and the journey
/// page that must say the same thing are held to them here.
@Suite struct StatusGroupingsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func groupings() {
        #expect(VerificationStatus.allCases.filter(\.isEditable) == [.created, .inProgress])
        #expect(VerificationStatus.allCases.filter(\.isClosed) == [.approved, .rejected, .canceled, .expired])
        #expect(VerificationStatus.allCases.filter { !$0.holdsUserSlot } == [.canceled, .expired])
        #expect(VerificationStatus.holdsUserSlotSQL == "status NOT IN ('canceled', 'expired')")
    }

    /// The partial unique index that enforces one verification per user and workflow has exactly
    /// the core's predicate, in both dialects.
    @Test(arguments: ["sqlite", "postgres"])
    func theIndexPredicateIsTheCores(_ dialect: String) throws {
        let file = Self.root.appendingPathComponent("Sources/HostedStorage/migrations/\(dialect)/0002_customer_api.sql")
        let text = try String(contentsOf: file, encoding: .utf8)
        let index = try #require(text.range(of: "CREATE UNIQUE INDEX verifications_open"))
        let statement = text[index.lowerBound...].prefix { $0 != ";" }
        #expect(statement.hasSuffix("WHERE " + VerificationStatus.holdsUserSlotSQL))
    }

    /// The journey page's list of statuses the user can still work on is the core's `isEditable`.
    @Test(arguments: ["main.js", "elsewhere.js"])
    func thePagesEditableListIsTheCores(_ module: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("public/journey/\(module)"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("const EDITABLE = [") })
        let listed = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(listed == VerificationStatus.allCases.filter(\.isEditable).map(\.rawValue))
        #expect(!text.contains("const OPEN"))
    }
}
