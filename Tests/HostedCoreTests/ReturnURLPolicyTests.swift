import HostedCore
import Testing

/// One return URL and what the policy should say about it.
struct ReturnURLRejection: Sendable, CustomTestStringConvertible {
    let url: String
    let devMode: Bool
    let code: String
    let label: String

    init(_ url: String, dev devMode: Bool = false, _ code: String, _ label: String? = nil) {
        self.url = url
        self.devMode = devMode
        self.code = code
        self.label = label ?? url
    }

    var testDescription: String { "\(label) [dev: \(devMode)] → \(code)" }
}

/// A return URL the policy should accept, with its expected comparison form.
struct ReturnURLAcceptance: Sendable, CustomTestStringConvertible {
    let url: String
    let devMode: Bool
    let canonical: String
    let label: String

    init(_ url: String, dev devMode: Bool = false, canonical: String, _ label: String? = nil) {
        self.url = url
        self.devMode = devMode
        self.canonical = canonical
        self.label = label ?? url
    }

    var testDescription: String { "\(label) [dev: \(devMode)]" }
}

private let invalid = "return_url_invalid"
private let notHTTPS = "return_url_not_https"
private let schemeNotAllowed = "return_url_scheme_not_allowed"
private let notRegistered = "return_url_not_registered"

/// "https://acme.example/" is 21 characters; pad the path to reach `length` in total.
private func httpsURL(length: Int) -> String {
    let prefix = "https://acme.example/"
    return prefix + String(repeating: "a", count: length - prefix.count)
}

/// The outcome of a call that throws `DomainError`: the accepted value, or the error's code and fields.
private enum Outcome {
    case accepted(ReturnURLPolicy.Accepted)
    case rejected(code: String, errors: [FieldError])
    case otherError(DomainError)

    var code: String? {
        if case .rejected(let code, _) = self { return code }
        return nil
    }

    var accepted: ReturnURLPolicy.Accepted? {
        if case .accepted(let value) = self { return value }
        return nil
    }
}

private func outcome(_ body: () throws(DomainError) -> ReturnURLPolicy.Accepted) -> Outcome {
    do throws(DomainError) {
        return .accepted(try body())
    } catch {
        guard case .invalidRequest(_, let errors, let code) = error else { return .otherError(error) }
        return .rejected(code: code.rawValue, errors: errors)
    }
}

private func validating(_ url: String, devMode: Bool) -> Outcome {
    outcome { () throws(DomainError) in try ReturnURLPolicy(devMode: devMode).validate(url) }
}

private func registering(_ url: String, registered: [String], devMode: Bool = false) -> Outcome {
    outcome { () throws(DomainError) in try ReturnURLPolicy(devMode: devMode).requireRegistered(url, registered: registered) }
}

@Suite struct ReturnURLPolicyTests {
    static let hostile: [ReturnURLRejection] = [
        // Custom and dangerous schemes.
        ReturnURLRejection("acme://kyc/done", schemeNotAllowed),
        ReturnURLRejection("acme://kyc/done", dev: true, schemeNotAllowed),
        ReturnURLRejection("javascript:alert(1)", schemeNotAllowed),
        ReturnURLRejection("JavaScript:alert(document.cookie)", schemeNotAllowed),
        ReturnURLRejection("javascript://acme.example/%0aalert(1)", schemeNotAllowed),
        ReturnURLRejection("data:text/html,x", schemeNotAllowed),
        ReturnURLRejection("vbscript:msgbox(1)", schemeNotAllowed),
        ReturnURLRejection("ftp://acme.example/", schemeNotAllowed),
        ReturnURLRejection("file:///etc/passwd", schemeNotAllowed),
        ReturnURLRejection("intent://kyc/done#Intent;scheme=acme;end", schemeNotAllowed),
        ReturnURLRejection("https2://acme.example/", schemeNotAllowed),
        // http downgrade.
        ReturnURLRejection("http://acme.example/done", notHTTPS),
        ReturnURLRejection("http://acme.example/done", dev: true, notHTTPS),
        ReturnURLRejection("HTTP://acme.example/done", notHTTPS),
        ReturnURLRejection("http://127.0.0.1:3000/done", notHTTPS),
        ReturnURLRejection("http://localhost/done", notHTTPS),
        ReturnURLRejection("http://[::1]:8080/done", notHTTPS),
        ReturnURLRejection("http://localhost.evil.tld/done", dev: true, notHTTPS),
        ReturnURLRejection("http://127.0.0.1.evil.tld/done", dev: true, notHTTPS),
        ReturnURLRejection("http://127.0.0.2/done", dev: true, notHTTPS),
        // Not absolute, or no host.
        ReturnURLRejection("", invalid, "(empty)"),
        ReturnURLRejection("//evil.tld/x", invalid),
        ReturnURLRejection("//evil.tld:443/x", invalid),
        ReturnURLRejection("/kyc/done", invalid),
        ReturnURLRejection("acme.example/kyc/done", invalid),
        ReturnURLRejection("https:/acme.example", invalid),
        ReturnURLRejection("https:acme.example", invalid),
        ReturnURLRejection("https://", invalid),
        ReturnURLRejection("https:///acme.example/", invalid),
        ReturnURLRejection("https://:443/", invalid),
        ReturnURLRejection("https://?x=1", invalid),
        ReturnURLRejection("https://[]/", invalid, "https://[]/ (empty IPv6 literal)"),
        // Malformed IPv6 literals: browsers' URL parsers refuse these, so they are not hosts.
        ReturnURLRejection("https://[:]/", invalid),
        ReturnURLRejection("https://[1:2]/", invalid),
        ReturnURLRejection("https://[1::2::3]/", invalid),
        ReturnURLRejection(":https://acme.example/", invalid),
        ReturnURLRejection("1https://acme.example/", invalid),
        // User-info.
        ReturnURLRejection("https://acme.example@evil.tld/", invalid),
        ReturnURLRejection("https://user:pw@acme.example/", invalid),
        ReturnURLRejection("https://@acme.example/", invalid),
        ReturnURLRejection("http://acme.example@127.0.0.1/done", dev: true, invalid),
        // Fragments.
        ReturnURLRejection("https://acme.example/done#frag", invalid),
        ReturnURLRejection("https://acme.example/done#", invalid),
        ReturnURLRejection("https://acme.example#@evil.tld/", invalid),
        // Whitespace, control characters, backslashes, non-ASCII.
        ReturnURLRejection(" https://acme.example/done", invalid, "(leading space)"),
        ReturnURLRejection("https://acme.example/done ", invalid, "(trailing space)"),
        ReturnURLRejection("https://acme.example/ done", invalid),
        ReturnURLRejection("https://acme.example/a\tb", invalid, "(tab in path)"),
        ReturnURLRejection("https://acme.example/a\nb", invalid, "(newline in path)"),
        ReturnURLRejection("https://acme.example\n.evil.tld/", invalid, "(newline in host)"),
        ReturnURLRejection("https://acme.example/done\r\n", invalid, "(trailing CRLF)"),
        ReturnURLRejection("https://acme.example/\u{0}", invalid, "(NUL)"),
        ReturnURLRejection("https://acme.example/\u{7F}", invalid, "(DEL)"),
        ReturnURLRejection("https://acme.example\\@evil.tld", invalid),
        ReturnURLRejection("https:\\\\evil.tld/", invalid),
        ReturnURLRejection("https://\u{0430}cme.example/", invalid, "(Cyrillic а in host)"),
        ReturnURLRejection("https://acme.example/d\u{00E9}j\u{00E0}", invalid, "(non-ASCII path)"),
        ReturnURLRejection("https://acme.example\u{3002}evil.tld/", invalid, "(ideographic full stop)"),
        // Percent-encoding and odd characters in the host.
        ReturnURLRejection("https://acme%2eexample/", invalid),
        ReturnURLRejection("https://acme.example%40evil.tld/", invalid),
        ReturnURLRejection("https://acme.example%2f.evil.tld/", invalid),
        ReturnURLRejection("https://acme_example/", invalid),
        ReturnURLRejection("https://.acme.example/", invalid),
        ReturnURLRejection("https://-acme.example/", invalid),
        ReturnURLRejection("https://acme.example;evil.tld/", invalid),
        ReturnURLRejection("https://::1/", invalid),
        ReturnURLRejection("https://[::1/", invalid),
        ReturnURLRejection("https://[::1]x/", invalid),
        ReturnURLRejection("https://[fe80::1%25eth0]/", invalid),
        // Ports.
        ReturnURLRejection("https://acme.example:99999/", invalid),
        ReturnURLRejection("https://acme.example:65536/", invalid),
        ReturnURLRejection("https://acme.example:0/", invalid),
        ReturnURLRejection("https://acme.example:-1/", invalid),
        ReturnURLRejection("https://acme.example:+443/", invalid),
        ReturnURLRejection("https://acme.example:/", invalid),
        ReturnURLRejection("https://acme.example:443:443/", invalid),
        ReturnURLRejection("https://acme.example:https/", invalid),
        ReturnURLRejection("https://acme.example:99999999999999999999999/", invalid),
        // Length.
        ReturnURLRejection(httpsURL(length: 2049), invalid, "(2049-character https URL)"),
        ReturnURLRejection(httpsURL(length: 10_000), invalid, "(10000-character https URL)"),
    ]

    static let valid: [ReturnURLAcceptance] = [
        ReturnURLAcceptance("https://acme.example/kyc/done", canonical: "https://acme.example/kyc/done"),
        ReturnURLAcceptance("https://acme.example/kyc/done?a=1&b=2", canonical: "https://acme.example/kyc/done?a=1&b=2"),
        ReturnURLAcceptance("https://acme.example:8443/kyc/done", canonical: "https://acme.example:8443/kyc/done"),
        ReturnURLAcceptance("HTTPS://acme.example", canonical: "https://acme.example"),
        ReturnURLAcceptance("HTTPS://ACME.example/x", canonical: "https://acme.example/x"),
        ReturnURLAcceptance("https://acme.example", canonical: "https://acme.example"),
        ReturnURLAcceptance("https://acme.example?x=1", canonical: "https://acme.example?x=1"),
        ReturnURLAcceptance("https://sub.acme-corp.example/kyc/done", canonical: "https://sub.acme-corp.example/kyc/done"),
        ReturnURLAcceptance("https://acme.example/kyc%20done?next=%2Fhome", canonical: "https://acme.example/kyc%20done?next=%2Fhome"),
        ReturnURLAcceptance("https://203.0.113.7/done", canonical: "https://203.0.113.7/done"),
        ReturnURLAcceptance("https://[2001:db8::1]:8443/done", canonical: "https://[2001:db8::1]:8443/done"),
        ReturnURLAcceptance(httpsURL(length: 2048), canonical: httpsURL(length: 2048), "(exactly 2048 characters)"),
        // Loopback http in dev mode only.
        ReturnURLAcceptance("http://127.0.0.1:3000/done", dev: true, canonical: "http://127.0.0.1:3000/done"),
        ReturnURLAcceptance("http://localhost/done", dev: true, canonical: "http://localhost/done"),
        ReturnURLAcceptance("http://[::1]:8080/done", dev: true, canonical: "http://[::1]:8080/done"),
        ReturnURLAcceptance("HTTP://LOCALHOST:80/done", dev: true, canonical: "http://localhost/done"),
        // https stays fine in dev mode.
        ReturnURLAcceptance("https://acme.example/kyc/done", dev: true, canonical: "https://acme.example/kyc/done"),
    ]

    @Test(arguments: hostile)
    func rejectsHostileURLWithItsCode(_ example: ReturnURLRejection) {
        let result = validating(example.url, devMode: example.devMode)
        switch result {
        case .accepted(let accepted):
            Issue.record("accepted \(example.label) as \(accepted.canonical); expected \(example.code)")
        case .otherError(let error):
            Issue.record("unexpected error \(error) for \(example.label)")
        case .rejected(let code, let errors):
            #expect(code == example.code, "\(example.label)")
            #expect(errors.map(\.field) == ["url"], "\(example.label)")
        }
    }

    @Test(arguments: valid)
    func acceptsValidURL(_ example: ReturnURLAcceptance) {
        let result = validating(example.url, devMode: example.devMode)
        guard let accepted = result.accepted else {
            Issue.record("rejected \(example.label): \(result)")
            return
        }
        #expect(accepted.url == example.url)
        #expect(accepted.canonical == example.canonical)
    }

    @Test func theErrorNamesTheGivenField() {
        do throws(DomainError) {
            _ = try ReturnURLPolicy(devMode: false).validate("acme://kyc/done", field: "return_urls[2]")
            Issue.record("custom scheme accepted")
        } catch {
            guard case .invalidRequest(let detail, let errors, let code) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(code.rawValue == schemeNotAllowed)
            #expect(errors.map(\.field) == ["return_urls[2]"])
            #expect(!detail.isEmpty)
        }
    }

    @Test func maximumLengthIs2048() {
        #expect(ReturnURLPolicy.maximumLength == 2048)
        #expect(httpsURL(length: 2048).count == 2048)
        #expect(httpsURL(length: 2049).count == 2049)
    }

    // MARK: Canonical form

    @Test(arguments: [
        ("https://ACME.example:443/a?b", "https://acme.example/a?b"),
        ("HtTpS://Acme.Example/a", "https://acme.example/a"),
        ("https://acme.example:443", "https://acme.example"),
        ("https://acme.example:0443/a", "https://acme.example/a"),
        ("https://acme.example:80/a", "https://acme.example:80/a"),
        ("https://ACME.example:8443/a", "https://acme.example:8443/a"),
        ("https://acme.example/Kyc/DONE?Next=Home&X=Y", "https://acme.example/Kyc/DONE?Next=Home&X=Y"),
        ("https://ACME.EXAMPLE/%2F%2e?Q=%41", "https://acme.example/%2F%2e?Q=%41"),
        ("https://[2001:DB8::ABCD]:443/x", "https://[2001:db8::abcd]/x"),
    ])
    func canonicalFormLowerCasesSchemeAndHostAndDropsDefaultPort(_ url: String, _ canonical: String) {
        let result = validating(url, devMode: false)
        #expect(result.accepted?.canonical == canonical, "\(url): \(result)")
        #expect(result.accepted?.url == url, "the accepted URL keeps the customer's spelling")
    }

    @Test(arguments: [
        ("http://LOCALHOST:80/done", "http://localhost/done"),
        ("http://127.0.0.1:80/Done", "http://127.0.0.1/Done"),
        ("http://localhost:443/done", "http://localhost:443/done"),
        ("http://[::1]:3000/done", "http://[::1]:3000/done"),
    ])
    func canonicalFormOfLoopbackHTTPInDevMode(_ url: String, _ canonical: String) {
        let result = validating(url, devMode: true)
        #expect(result.accepted?.canonical == canonical, "\(url): \(result)")
    }

    // MARK: requireRegistered

    static let registered = ["https://acme.example/kyc/done"]

    @Test(arguments: [
        "https://acme.example/kyc/done",
        "HTTPS://ACME.EXAMPLE/kyc/done",
        "https://Acme.Example/kyc/done",
        "https://acme.example:443/kyc/done",
        "HTTPS://ACME.example:443/kyc/done",
    ])
    func matchesRegisteredURLIgnoringCaseOfSchemeAndHostAndDefaultPort(_ url: String) {
        let result = registering(url, registered: Self.registered)
        guard let accepted = result.accepted else {
            Issue.record("\(url) not matched: \(result)")
            return
        }
        #expect(accepted.url == "https://acme.example/kyc/done", "returns the registered spelling")
        #expect(accepted.canonical == "https://acme.example/kyc/done")
    }

    @Test func returnsTheRegisteredSpellingNotTheGivenOne() {
        let registered = ["https://other.example/", "HTTPS://ACME.example:443/kyc/done"]
        let result = registering("https://acme.example/kyc/done", registered: registered)
        #expect(result.accepted?.url == "HTTPS://ACME.example:443/kyc/done")
        #expect(result.accepted?.canonical == "https://acme.example/kyc/done")
    }

    @Test func picksTheMatchingEntryAmongSeveral() {
        let registered = ["https://acme.example/a", "https://acme.example/kyc/done", "https://acme.example:8443/kyc/done"]
        #expect(registering("https://acme.example:8443/kyc/done", registered: registered).accepted?.url
            == "https://acme.example:8443/kyc/done")
        #expect(registering("https://acme.example/a", registered: registered).accepted?.url == "https://acme.example/a")
    }

    @Test func skipsInvalidRegisteredEntries() {
        let registered = ["", "acme://kyc/done", "not a url", "https://acme.example/kyc/done"]
        #expect(registering("https://ACME.example/kyc/done", registered: registered).accepted?.url
            == "https://acme.example/kyc/done")
    }

    @Test func loopbackHTTPMatchesInDevMode() {
        let registered = ["http://localhost:3000/done"]
        #expect(registering("http://LOCALHOST:3000/done", registered: registered, devMode: true).accepted?.url
            == "http://localhost:3000/done")
        #expect(registering("http://localhost:3000/done", registered: registered, devMode: false).code == notHTTPS)
    }

    @Test(arguments: [
        "https://acme.example.evil.tld/kyc/done",
        "https://acme.example/kyc/done/",
        "https://acme.example/KYC/done",
        "https://acme.example/kyc/done?x=1",
        "https://acme.example/kyc/done?",
        "https://acme.example:8443/kyc/done",
        "https://acme.example/kyc/done/../done",
        "https://acme.example/kyc%2Fdone",
        "https://acme.example/kyc/%64one",
        "https://acme.example./kyc/done",
        "https://www.acme.example/kyc/done",
        "https://evil.tld/kyc/done",
        "https://evil.tld?@acme.example/kyc/done",
        "https://acme.example/kyc",
        "https://acme.example",
    ])
    func rejectsUnregisteredURL(_ url: String) {
        let result = registering(url, registered: Self.registered)
        guard case .rejected(let code, let errors) = result else {
            Issue.record("\(url): expected \(notRegistered), got \(result)")
            return
        }
        #expect(code == notRegistered)
        #expect(errors.map(\.field) == ["return_url"])
    }

    @Test func nothingRegisteredMatchesNothing() {
        #expect(registering("https://acme.example/kyc/done", registered: []).code == notRegistered)
    }

    @Test(arguments: [
        ReturnURLRejection("acme://kyc/done", schemeNotAllowed),
        ReturnURLRejection("javascript:alert(1)", schemeNotAllowed),
        ReturnURLRejection("http://acme.example/kyc/done", notHTTPS),
        ReturnURLRejection("http://acme.example/kyc/done", dev: true, notHTTPS),
        ReturnURLRejection("https://acme.example/kyc/done#x", invalid),
        ReturnURLRejection("https://acme.example@evil.tld/kyc/done", invalid),
        ReturnURLRejection("https://acme.example/kyc/done ", invalid, "(trailing space)"),
        ReturnURLRejection("//acme.example/kyc/done", invalid),
        ReturnURLRejection("https://acme%2eexample/kyc/done", invalid),
        ReturnURLRejection("", invalid, "(empty)"),
    ])
    func hostileInputKeepsItsOwnCodeAgainstRegisteredList(_ example: ReturnURLRejection) {
        // Even when the hostile URL is itself "registered", the rules come first.
        let registered = Self.registered + [example.url]
        let result = registering(example.url, registered: registered, devMode: example.devMode)
        guard case .rejected(let code, let errors) = result else {
            Issue.record("\(example.label): expected \(example.code), got \(result)")
            return
        }
        #expect(code == example.code, "\(example.label)")
        #expect(errors.map(\.field) == ["return_url"], "\(example.label)")
    }
}
