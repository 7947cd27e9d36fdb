import Foundation
import HostedCore
import Testing

/// `ReturnURLQuery.appending`: the redirect's query built on the registered URL's text, checked
/// against how it was built before (`URLComponents`, the reference below, kept as it was).
@Suite struct ReturnURLQueryTests {
    static let items = [(name: "verification_id", value: "ver_72bdkh2q4a3tqgrj4iwazc3p5m"), (name: "status", value: "submitted")]

    /// The redirect's query as `JourneyService` built it until 2026-12-07 (and still does for a
    /// URL `appending` leaves alone).
    static func throughComponents(_ items: [(name: String, value: String)], to url: String) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        var queryItems = components.queryItems ?? []
        queryItems += items.map { URLQueryItem(name: $0.name, value: $0.value) }
        components.queryItems = queryItems
        return components.string
    }

    @Test(arguments: [
        "https://app.example.com/done",
        "https://app.example.com",
        "https://app.example.com/",
        "https://app.example.com:8443/a/b/c",
        "http://127.0.0.1:5000/done",
        "https://app.example.com/done?src=app",
        "https://app.example.com/done?src=app&x=1",
        "https://app.example.com/done?flag",
        "https://app.example.com/done?empty=",
        "https://app.example.com/done?next=/home?tab",
        "https://app.example.com/done?q=a+b",
        "https://app.example.com/done?list=a,b;c&who=me@example.com",
        "https://app.example.com/done?x=!$'()*",
        "https://app.example.com/done?",
        "https://app.example.com/~user/done.html?v=1.2-3_4~5",
        "https://app.example.com/a:b@c/done",
    ])
    func sameAsBefore(url: String) throws {
        let fast = try #require(ReturnURLQuery.appending(Self.items, to: url))
        #expect(fast == Self.throughComponents(Self.items, to: url))
    }

    @Test func appendsAfterTheQueryOrStartsOne() {
        #expect(ReturnURLQuery.appending(Self.items, to: "https://a.example/done")
                == "https://a.example/done?verification_id=ver_72bdkh2q4a3tqgrj4iwazc3p5m&status=submitted")
        #expect(ReturnURLQuery.appending(Self.items, to: "https://a.example/done?src=app")
                == "https://a.example/done?src=app&verification_id=ver_72bdkh2q4a3tqgrj4iwazc3p5m&status=submitted")
        #expect(ReturnURLQuery.appending(Self.items, to: "https://a.example/done?")
                == "https://a.example/done?verification_id=ver_72bdkh2q4a3tqgrj4iwazc3p5m&status=submitted")
        #expect(ReturnURLQuery.appending([], to: "https://a.example/done") == "https://a.example/done")
    }

    /// Names and values are percent-encoded, whatever they hold (ids and statuses never need it).
    @Test func encodesEveryReservedByteOfAValue() throws {
        let url = try #require(ReturnURLQuery.appending([(name: "a b", value: "x&y=z#?/+%é~._-")], to: "https://a.example/done?k=v"))
        #expect(url == "https://a.example/done?k=v&a%20b=x%26y%3Dz%23%3F%2F%2B%25%C3%A9~._-")
        let parsed = try #require(URLComponents(string: url)?.queryItems)
        #expect(parsed.map(\.name) == ["k", "a b"])
        #expect(parsed.map(\.value) == ["v", "x&y=z#?/+%é~._-"])
        var bytes: [UInt8] = []
        ReturnURLQuery.appendEncoded("AZaz09-._~ !*'", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "AZaz09-._~%20%21%2A%27")
    }

    /// What `URLComponents` rewrote or refused is left to it (nil here): a percent escape, an
    /// empty pair, a trailing `&`, a second `=` in a pair (written back as `%3D`), a fragment,
    /// characters outside RFC 3986, an IPv6 literal, no http(s) scheme.
    @Test(arguments: [
        "https://app.example.com/done?a=b=c",
        "https://app.example.com/done?next=/home?tab=2",
        "https://app.example.com/done?x=1&y==",
        "https://[::1]:8443/done",
        "https://app.example.com/done?name=%41%2Bb",
        "https://app.example.com/d%20one",
        "https://app.example.com/done?a=1&&b=2",
        "https://app.example.com/done?a=1&",
        "https://app.example.com/done?&a=1",
        "https://app.example.com/done#top",
        "https://app.example.com/done?q=\"x\"",
        "https://app.example.com/done?q=<x>",
        "https://app.example.com/done?q={x}|^`",
        "https://app.example.com/done?q=a b",
        "https://app.example.com/done?q=é",
        "ftp://app.example.com/done",
        "app.example.com/done",
    ])
    func leavesTheRestToComponents(url: String) {
        #expect(ReturnURLQuery.appending(Self.items, to: url) == nil)
    }

    /// Random URLs over every character `appending` takes: the same text as before, each time.
    @Test func sameAsBeforeForRandomURLs() throws {
        var generator = SplitMix(seed: 40)
        let path = Array("abcXYZ019-._~!$&'()*+,;=:@/".utf8)
        let query = Array("abcXYZ019-._~!$&'()*+,;=:@/?".utf8)
        var checked = 0
        for _ in 0..<3000 {
            var text = "https://app.example.com/"
            for _ in 0..<Int(generator.next() % 12) { text.append(Character(UnicodeScalar(path[Int(generator.next() % UInt64(path.count))]))) }
            if generator.next() % 4 != 0 {
                text += "?"
                for _ in 0..<Int(generator.next() % 16) { text.append(Character(UnicodeScalar(query[Int(generator.next() % UInt64(query.count))]))) }
            }
            guard let fast = ReturnURLQuery.appending(Self.items, to: text) else { continue }
            #expect(fast == Self.throughComponents(Self.items, to: text), "\(text)")
            checked += 1
        }
        #expect(checked > 2000)
    }

    /// A small seeded generator (SplitMix64), so a failure names a URL that comes back.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
