import Foundation
import HostedArchive
import Testing

/// The libzip wrapper: what it writes another reader reads back exactly (stored JPEGs, deflated
/// JSON, the given time in UTC), the same input gives the same bytes, and names and sizes it
/// must not take are refused before libzip sees them.
@Suite struct ZipArchiveTests {
    static let time = Date(timeIntervalSince1970: 1_796_000_000) // 2026-11-30T00:53:20Z

    static let entries = [
        ZipArchive.Entry(name: "manifest.json", bytes: Array(String(repeating: #"{"a":1}"#, count: 200).utf8), compression: .deflate),
        ZipArchive.Entry(name: "artifacts/art_1.jpg", bytes: (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, compression: .store),
        ZipArchive.Entry(name: "empty.txt", bytes: [], compression: .store),
    ]

    @Test func build_isReadBackByPythonsZipfile() throws {
        let zip = try ZipArchive.build(Self.entries, modified: Self.time)
        let read = try UnzippedArchive(zip)
        #expect(read.names == Self.entries.map(\.name))
        for entry in Self.entries {
            #expect(read[entry.name]?.bytes == entry.bytes, "\(entry.name)")
            #expect(read[entry.name]?.compressType == (entry.compression == .store ? 0 : 8), "\(entry.name)")
            // DOS times have two-second steps: 00:53:20 is exact.
            #expect(read[entry.name]?.dateTime == [2026, 11, 30, 0, 53, 20], "\(entry.name)")
        }
        #expect(zip.count < 5000 + 1400 + 600) // the JSON was deflated
    }

    @Test func build_sameInput_sameBytes_otherTime_otherBytes() throws {
        let first = try ZipArchive.build(Self.entries, modified: Self.time)
        #expect(try ZipArchive.build(Self.entries, modified: Self.time) == first)
        #expect(try ZipArchive.build(Self.entries, modified: Self.time.addingTimeInterval(60)) != first)
    }

    @Test func build_refusesNamesAndSizesItMustNotTake() throws {
        for name in ["", "/etc/passwd", "../x", "a/../b", "a//b", "a/", ".", "..", "a\\b", "é.txt", "a b", "a:b", String(repeating: "a", count: 201)] {
            #expect(!ZipArchive.isValidName(name), "\(name)")
            #expect(throws: ZipArchive.Failure.invalidName(name)) {
                try ZipArchive.build([ZipArchive.Entry(name: name, bytes: [1], compression: .store)], modified: Self.time)
            }
        }
        #expect(ZipArchive.isValidName("artifacts/art_01ABC.jpg") && ZipArchive.isValidName("manifest.json.jws"))
        let one = ZipArchive.Entry(name: "a", bytes: [1, 2, 3], compression: .store)
        #expect(throws: ZipArchive.Failure.duplicateName("a")) { try ZipArchive.build([one, one], modified: Self.time) }
        #expect(throws: ZipArchive.Failure.empty) { try ZipArchive.build([], modified: Self.time) }
        var limits = ZipArchive.Limits(maximumEntries: 2, maximumEntryBytes: 3, maximumTotalBytes: 5)
        #expect(throws: ZipArchive.Failure.entryTooLarge("b")) {
            try ZipArchive.build([ZipArchive.Entry(name: "b", bytes: [1, 2, 3, 4], compression: .store)], modified: Self.time, limits: limits)
        }
        let two = ZipArchive.Entry(name: "b", bytes: [1, 2, 3], compression: .store)
        #expect(throws: ZipArchive.Failure.tooLarge(6)) { try ZipArchive.build([one, two], modified: Self.time, limits: limits) }
        limits.maximumTotalBytes = 100
        let three = ZipArchive.Entry(name: "c", bytes: [1], compression: .store)
        #expect(throws: ZipArchive.Failure.tooManyEntries(3)) { try ZipArchive.build([one, two, three], modified: Self.time, limits: limits) }
        #expect(try UnzippedArchive(try ZipArchive.build([one, two], modified: Self.time, limits: limits)).names == ["a", "b"])
    }
}
