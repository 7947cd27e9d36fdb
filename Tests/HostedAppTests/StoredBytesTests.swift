import HostedStorage
import HostedTestSupport
import Testing

/// `TestApplication.storedBytes()` is what every "this value is nowhere in clear" test scans, so
/// it must see every kind of column in clear on both stores: text, and bytes (PostgreSQL's row
/// text shows a `bytea` as hex, where a scan for the value would never find it).
@Suite struct StoredBytesTests {
    @Test(arguments: Store.allCases)
    func theScanSeesTextAndBinaryColumnsInClear(_ store: Store) throws {
        guard store.isAvailable else { return }
        let app = try TestApplication(store: store)
        defer { app.close() }
        let (inText, inBytes) = ("Marker-in-text-5521", "Marker-in-bytes-7390")
        #expect(!(try app.storedBytes()).contains(text: inText))
        #expect(!(try app.storedBytes()).contains(text: inBytes))
        _ = try app.application.database.query("""
            INSERT INTO idempotency_keys (account_id, key, request_hash, status, content_type, body, created_at)
            VALUES (\(inText), 'k', 'h', 200, 'application/json', \(Array(inBytes.utf8)), 0)
            """)
        let stored = try app.storedBytes()
        let (seesText, seesBytes) = (stored.contains(text: inText), stored.contains(text: inBytes))
        #expect(seesText)
        #expect(seesBytes, "a bytea value is scanned as its bytes")
    }
}
