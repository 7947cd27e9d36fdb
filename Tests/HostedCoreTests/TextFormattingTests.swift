import Foundation
import Testing
@testable import HostedCore

/// The hand-written formatters that run on every request, against Foundation's.
@Suite struct TextFormattingTests {
    /// Every day from 1899 to 2101 (leap years, 1900 and 2000 among them) at a varying time of
    /// day, and the ends of the range, match `ISO8601DateFormatter`.
    @Test(arguments: [0, 7, 10, -1, -10, 42, 1_000_000, Int.max, Int.min])
    func integersAreWrittenAsTheirDecimalDigits(_ value: Int) {
        var bytes = Array("x".utf8)
        JSONText.appendInt(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x" + String(value))
    }

    @Test func rfc3339MatchesFoundationOverTwoCenturies() {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var mismatches: [String] = []
        var day = -25_933  // 1899-01-01
        while day < 47_848 {  // 2101-01-01
            let secondOfDay = abs(day * 7919) % 86_400
            let date = Date(timeIntervalSince1970: Double(day * 86_400 + secondOfDay) + 0.125)  // exact in binary
            if RFC3339.format(date) != plain.string(from: date) { mismatches.append(plain.string(from: date)) }
            if RFC3339.format(date, milliseconds: true) != fractional.string(from: date) { mismatches.append(fractional.string(from: date)) }
            day += 1
        }
        #expect(mismatches.count == 0, "\(mismatches.prefix(5))")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.125), milliseconds: true) == "1969-12-31T23:59:59.875Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1e15)) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1e15)) == "0000-01-01T00:00:00Z")
    }

    /// The byte writer escapes exactly as the String writer does (which a test checks against
    /// JSONSerialization elsewhere), for every byte class: quotes, backslashes, controls, DEL,
    /// multi-byte characters.
    @Test func jsonStringBytesMatchTheStringWriter() {
        var samples = ["", "plain", "q\"uote", "back\\slash", "tab\tnew\nline\r", "\u{7F}del", "é ñ 漢字 👍🏽", "\u{0}\u{1}\u{1F}"]
        samples.append(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self))
        for sample in samples {
            var text = ""
            JSONText.appendString(sample, to: &text)
            var bytes: [UInt8] = []
            JSONText.appendString(sample, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == text, "\(Array(sample.utf8))")
            let decoded = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String
            #expect(decoded == sample)
        }
        var object = JSONText.Object()
        object.string("a", "x\"y")
        object.string("b", nil)
        object.int("c", -42)
        object.raw("d", "[1]")
        object.raw("e", bytes: Array("{}".utf8))
        #expect(object.json == #"{"a":"x\"y","b":null,"c":-42,"d":[1],"e":{}}"#)
    }

    @Test func trimmedASCIIWhitespaceDropsOnlySpacesAndTabs() {
        #expect(" \t sk_x \t".trimmedASCIIWhitespace == "sk_x")
        #expect("sk_x".trimmedASCIIWhitespace == "sk_x")
        #expect(" \t ".trimmedASCIIWhitespace == "")
        #expect("".trimmedASCIIWhitespace == "")
        #expect("\u{A0}x\n".trimmedASCIIWhitespace == "\u{A0}x\n")
    }
}
