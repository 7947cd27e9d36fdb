import HostedHTTP
import Testing

/// What the HTTP fuzz targets (fuzz-form, fuzz-router; docs/fuzzing.md) found.
@Suite struct FuzzRegressionTests {
    /// fuzz-form (a property, not a crash): `Request.cookie(_:)` splits the header on the
    /// Character ";", but U+0600 (a "prepend" character) and the ";" after it are one Character,
    /// so the value of one cookie runs on into the next — a reading no browser or proxy shares.
    @Test func cookieValuesEndAtEverySemicolon() {
        let request = Request(method: "GET", path: "/",
                              headers: HTTPHeaders([("Cookie", "hosted_journey=abc\u{600};hosted_session=evil")]))
        #expect(request.cookie("hosted_journey") == "abc\u{600}")
        #expect(request.cookie("hosted_session") == "evil")
    }

    /// fuzz-form (same class): `FormURLEncoded.decode` splits on the Characters "&" and "=", so a
    /// combining mark after either hides it (`&\u{301}` is one Character).
    @Test func formPairsEndAtEveryAmpersand() throws {
        let pairs = try #require(FormURLEncoded.decode(Array("a=1&\u{301}b=2".utf8)))
        #expect(pairs.map(\.name) == ["a", "\u{301}b"])
    }
}
