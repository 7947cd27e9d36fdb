import Foundation
import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedTestSupport
import Testing

/// An account's branding (issue 44) through the application on both stores: each field's rules,
/// the logo re-encoded by libvips (PNG and JPEG in, a PNG at most 256 px high and without
/// metadata out; SVG, GIF, HTML and oversized bodies refused with nothing stored), the logo served
/// by its content hash, tenancy between accounts, and SMS texts that begin with the display name.
@Suite struct BrandingTests {
    struct Fixture: AccountFixture {
        let app: TestApplication
        let auth: [(String, String)]
        let accountID: String

        init(_ store: Store, name: String = "Acme") throws {
            app = try TestApplication(store: store) { $0.devMode = true }
            (auth, accountID) = try Self.account(app, name)
        }

        static func account(_ app: TestApplication, _ name: String) throws -> ([(String, String)], String) {
            let created = try app.application.accounts.createAccount(name: name)
            return ([("Authorization", "Bearer \(created.secret.value)")], created.account.id.rawValue)
        }

        func patch(_ body: String, auth: [(String, String)]? = nil) -> Response {
            app.request("PATCH", "/v1/account", headers: auth ?? self.auth, body: body)
        }

        func putLogo(_ bytes: [UInt8], auth: [(String, String)]? = nil, contentType: String = "image/png") -> Response {
            let request = Request(method: "PUT", path: "/v1/account/logo",
                                  headers: HTTPHeaders((auth ?? self.auth) + [("Content-Type", contentType)]), body: bytes)
            do {
                return TestApplication.response(of: try app.application.responder.respond(to: request, context: RequestContext(requestID: "t")))
            } catch {
                return Response(status: 599)
            }
        }

        func branding(auth: [(String, String)]? = nil) -> [String: Any] {
            json(app.request("GET", "/v1/account", headers: auth ?? self.auth))["branding"] as? [String: Any] ?? [:]
        }

        /// A verification of the account with `auth`, for `mobile`.
        func verification(auth: [(String, String)]? = nil, mobile: String = "+919876543210") -> String {
            let headers = auth ?? self.auth
            _ = app.request("POST", "/v1/workflows", headers: headers, body: #"{"key":"w","name":"W","steps":[{"type":"selfie"}]}"#)
            return json(app.request("POST", "/v1/verifications", headers: headers,
                                    body: #"{"user_id":"u1","workflow":"w","mobile":"\#(mobile)"}"#))["id"] as? String ?? ""
        }

        /// `/brand/…` of an absolute logo URL.
        func path(_ url: Any?) -> String { URL(string: url as? String ?? "")?.path ?? "/none" }

        func logoRows() throws -> Int {
            Int(try app.application.database.query("SELECT count(*) AS n FROM account_logos")[0].int("n"))
        }

        func close() { app.close() }
    }

    static let png = TestImages.photoPNG(width: 600, height: 400)

    @Test(arguments: Store.allCases)
    func patchAccount_200_setsClearsAndKeepsEachField(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        // Without branding every member is there, null: today's look.
        #expect(f.branding().count == 4 && f.branding().values.allSatisfy { $0 is NSNull })
        let set = f.patch(##"{"branding":{"display_name":"  Acme Bank ","accent_color":"#0A58CA","support_url":"https://acme.example/help"}}"##)
        #expect(set.status == 200)
        let answered = try #require(f.json(set)["branding"] as? [String: Any])
        #expect(answered["display_name"] as? String == "Acme Bank")
        #expect(answered["accent_color"] as? String == "#0a58ca")
        #expect(answered["support_url"] as? String == "https://acme.example/help")
        #expect(answered["logo_url"] is NSNull)
        #expect(f.branding()["display_name"] as? String == "Acme Bank")
        // null clears one field; the fields left out are kept.
        #expect(f.patch(#"{"branding":{"support_url":null}}"#).status == 200)
        #expect(f.branding()["support_url"] is NSNull)
        #expect(f.branding()["accent_color"] as? String == "#0a58ca")
        #expect(f.branding()["display_name"] as? String == "Acme Bank")
        // 60 characters (Devanagari counted as a reader counts them) is the longest name.
        let sixty = String(repeating: "क", count: 60)
        #expect(f.patch(#"{"branding":{"display_name":"\#(sixty)"}}"#).status == 200)
        #expect(f.branding()["display_name"] as? String == sixty)
    }

    static let invalid: [(String, String)] = [
        (#"{"display_name":""}"#, "branding.display_name"),
        (#"{"display_name":"   "}"#, "branding.display_name"),
        (#"{"display_name":"\#(String(repeating: "a", count: 61))"}"#, "branding.display_name"),
        (#"{"display_name":"Acme\nBank"}"#, "branding.display_name"),
        (#"{"display_name":"Acme\u202eknaB"}"#, "branding.display_name"),
        (#"{"display_name":12}"#, "branding.display_name"),
        (##"{"accent_color":"#fff"}"##, "branding.accent_color"),
        (##"{"accent_color":"0a58ca"}"##, "branding.accent_color"),
        (##"{"accent_color":"#12345g"}"##, "branding.accent_color"),
        (##"{"accent_color":"blue"}"##, "branding.accent_color"),
        (##"{"accent_color":"#0a58ca80"}"##, "branding.accent_color"),
        (#"{"support_url":"http://acme.example/help"}"#, "branding.support_url"),
        (#"{"support_url":"javascript:alert(1)"}"#, "branding.support_url"),
        (#"{"support_url":"https://"}"#, "branding.support_url"),
        (#"{"support_url":"https://user:pass@acme.example/"}"#, "branding.support_url"),
        (#"{"support_url":"//acme.example/help"}"#, "branding.support_url"),
        (#"{"support_url":"https://acme.example/a b"}"#, "branding.support_url"),
        (#"{"logo":"x"}"#, "branding.logo"),
    ]

    @Test(arguments: Store.allCases)
    func patchAccount_422_eachFieldsRules_storeNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        #expect(f.patch(##"{"branding":{"display_name":"Acme Bank","accent_color":"#0a58ca"}}"##).status == 200)
        for (branding, field) in Self.invalid {
            // A valid field beside the invalid one is not stored either.
            let valid = field == "branding.support_url" ? #""display_name":"Other","# : #""support_url":"https://ok.example/","#
            let body = #"{"branding":{"# + valid + branding.dropFirst() + "}"
            let refused = f.patch(String(body))
            #expect(refused.status == 422, "\(branding)")
            let fields = (f.json(refused)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(fields.contains(field), "\(branding): \(fields)")
            #expect(f.branding()["display_name"] as? String == "Acme Bank")
            #expect(f.branding()["accent_color"] as? String == "#0a58ca")
            #expect(f.branding()["support_url"] is NSNull)
            #expect(f.branding()["display_name"] as? String == "Acme Bank")
        }
        #expect(f.patch(#"{"name":"x"}"#).status == 422)
        #expect(f.patch(#"{"branding":"Acme"}"#).status == 422)
        #expect(f.patch("not json").status == 400)
        #expect(f.patch(#"{"branding":{}}"#, auth: [("Authorization", "Bearer sk_nope")]).status == 401)
    }

    @Test(arguments: Store.allCases)
    func putLogo_200_pngAndJPEGReencodedAsAPNGServedByItsHash(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let stored = f.putLogo(Self.png)
        #expect(stored.status == 200)
        let url = try #require(f.json(stored)["branding"] as? [String: Any])["logo_url"] as? String
        #expect(url?.hasPrefix("https://verify.example.com/brand/\(f.accountID)/logo-") == true)
        #expect(url?.hasSuffix(".png") == true)
        let served = f.app.request("GET", f.path(url))
        #expect(served.status == 200)
        #expect(served.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(served.headers["Content-Type"] == "image/png")
        #expect(served.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        #expect(served.headers["X-Content-Type-Options"] == "nosniff")
        #expect(served.headers["Referrer-Policy"] == "no-referrer")
        // 600 × 400 became 384 × 256; the name is the content's hash.
        let height = served.body[20..<24].reduce(0) { $0 << 8 | Int($1) }
        let width = served.body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 384 && height == 256)
        #expect(url?.contains(String(Digest.hex(Digest.sha256(served.body)).prefix(16))) == true)
        // Another hash, another account's id or a bad name: 404.
        #expect(f.app.request("GET", "/brand/\(f.accountID)/logo-0000000000000000.png").status == 404)
        #expect(f.app.request("GET", "/brand/\(f.accountID)/logo.png").status == 404)
        #expect(f.app.request("GET", "/brand/acct_nope/logo-0000000000000000.png").status == 404)

        // A JPEG with EXIF (a serial, a position): re-encoded as a PNG without any of it.
        let jpeg = try VipsImageNormalizer().normalize(TestImages.photoPNG(width: 80, height: 60)).bytes
        let tagged = TestImages.inserting(TestImages.exifSegment(orientation: 1, make: "SERIAL-XJ-77881", model: "GPS 12.971599N"), into: jpeg)
        let replaced = f.putLogo(tagged, contentType: "image/jpeg")
        #expect(replaced.status == 200)
        let newURL = (f.json(replaced)["branding"] as? [String: Any])?["logo_url"] as? String
        #expect(newURL != url)
        let png = f.app.request("GET", f.path(newURL)).body
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(!png.contains(text: "SERIAL-XJ") && !png.contains(text: "GPS") && !png.contains(text: "Exif") && !png.contains(text: "eXIf"))
        // The old URL no longer leads anywhere (a cached copy is the old logo, under its own name).
        #expect(f.app.request("GET", f.path(url)).status == 404)
        #expect(try f.logoRows() == 1)

        // DELETE: no logo, no URL.
        let deleted = f.app.request("DELETE", "/v1/account/logo", headers: f.auth)
        #expect(deleted.status == 200)
        #expect((f.json(deleted)["branding"] as? [String: Any])?["logo_url"] is NSNull)
        #expect(f.app.request("GET", f.path(newURL)).status == 404)
        #expect(try f.logoRows() == 0)
    }

    @Test(arguments: Store.allCases)
    func putLogo_415_svgGIFAndHTML_422_undecodable_413_oversized_storeNothing(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let refusals: [[UInt8]] = [
            Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8),
            Array(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8),
            Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B],
            Array("<!doctype html><html><body>Acme</body></html>".utf8),
            Array("RIFF\0\0\0\0WEBPVP8 ".utf8),
            [],
        ]
        for bytes in refusals {
            let refused = f.putLogo(bytes, contentType: "image/png")
            #expect(refused.status == 415)
            #expect(refused.headers["Content-Type"] == "application/problem+json")
            #expect(f.code(refused) == "unsupported_media_type")
        }
        // PNG and JPEG by their first bytes only, then not decodable: 422.
        for bytes in [TestImages.jpegHeader(), TestImages.pngHeader(), Array(Self.png.prefix(200))] {
            let refused = f.putLogo(bytes)
            #expect(refused.status == 422)
            #expect(f.code(refused) == "image_invalid")
        }
        // Larger than 1 MB: refused from the headers, before the body is read.
        // (The server compares a request's Content-Length with the route's limit in the header phase.)
        #expect(f.app.application.responder.bodyLimit(method: "PUT", path: "/v1/account/logo") == 1_000_000)
        // And should one reach the service (the command line's --logo), it is refused there too.
        #expect(f.putLogo(Self.png + [UInt8](repeating: 0, count: 1_000_001 - Self.png.count)).status == 422)
        #expect(try f.logoRows() == 0)
        #expect(f.branding()["logo_url"] is NSNull)
        // Without a key nothing is read either.
        #expect(f.app.admit("PUT", "/v1/account/logo") == 401)
    }

    @Test(arguments: Store.allCases)
    func journeyBrand_200_onlyTheVerificationsOwnAccount_404_otherwise(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (beta, betaID) = try Fixture.account(f.app, "Beta")
        #expect(f.patch(##"{"branding":{"display_name":"Acme Bank","accent_color":"#ffff00","support_url":"https://acme.example/help"}}"##).status == 200)
        let acmeLogo = (f.json(f.putLogo(Self.png))["branding"] as? [String: Any])?["logo_url"] as? String
        let acmeJourney = f.verification()
        let betaJourney = f.verification(auth: beta)

        let acme = f.json(f.app.request("GET", "/j/\(acmeJourney)/api/brand"))
        #expect(acme["display_name"] as? String == "Acme Bank")
        #expect(acme["logo_url"] as? String == acmeLogo)
        #expect(acme["support_url"] as? String == "https://acme.example/help")
        // The page gets the colour already made readable: yellow darkened until 4.5:1 on white.
        let accent = try #require(AccentColor(hex: acme["accent_color"] as? String ?? ""))
        #expect(accent != AccentColor(hex: "#ffff00"))
        #expect(AccentColor.contrast(accent, .white) >= 4.5)
        #expect(AccentColor.contrast(try #require(AccentColor(hex: acme["accent_color_dark"] as? String ?? "")),
                                     try #require(AccentColor(hex: "#0b1d3a"))) >= 4.5)
        // Nothing about the verification (a test one's says `livemode: false`, and only that: TestModeSeparationTests).
        #expect(Set(acme.keys) == ["object", "display_name", "accent_color", "accent_color_dark", "support_url", "logo_url"])

        // Beta's journey shows Beta's (none), never Acme's; Acme's logo is not served as Beta's.
        let betaBrand = f.app.request("GET", "/j/\(betaJourney)/api/brand")
        #expect(betaBrand.status == 200)
        #expect(f.json(betaBrand)["display_name"] is NSNull)
        #expect(f.json(betaBrand)["logo_url"] is NSNull)
        #expect(!String(decoding: betaBrand.body, as: UTF8.self).contains("Acme"))
        let file = URL(string: acmeLogo ?? "")?.lastPathComponent ?? ""
        #expect(f.app.request("GET", "/brand/\(betaID)/\(file)").status == 404)
        // Beta's own logo has Beta's URL, and Acme's journey still shows Acme's.
        let betaLogo = (f.json(f.putLogo(TestImages.photoPNG(width: 90, height: 30), auth: beta))["branding"] as? [String: Any])?["logo_url"] as? String
        #expect(betaLogo?.contains(betaID) == true)
        #expect(f.json(f.app.request("GET", "/j/\(betaJourney)/api/brand"))["logo_url"] as? String == betaLogo)
        #expect(f.json(f.app.request("GET", "/j/\(acmeJourney)/api/brand"))["logo_url"] as? String == acmeLogo)
        #expect(f.branding(auth: beta)["display_name"] is NSNull)

        // An unknown or malformed id: a 404 problem.
        for id in ["vrf_00000000000000000000000000", "nope"] {
            let missing = f.app.request("GET", "/j/\(id)/api/brand")
            #expect(missing.status == 404)
            #expect(missing.headers["Content-Type"] == "application/problem+json")
        }
    }

    @Test(arguments: Store.allCases)
    func smsTexts_beginWithTheDisplayName_andWithoutOneAreTodays(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try Fixture(store)
        defer { f.close() }
        let (plain, _) = try Fixture.account(f.app, "Plain")
        #expect(f.patch(#"{"branding":{"display_name":"Acme Bank"}}"#).status == 200)
        let branded = f.verification(mobile: "+919876543210")
        let unbranded = f.verification(auth: plain, mobile: "+919876543211")
        for id in [branded, unbranded] {
            #expect(f.app.journey("POST", id, "/api/otp", body: #"{"mobile":"\#(id == branded ? "+919876543210" : "+919876543211")"}"#).status == 202)
        }
        f.app.application.runBackgroundWork()
        func texts(_ number: String) -> [String] {
            (f.json(f.app.request("GET", "/dev/outbox?to=\(number.replacingOccurrences(of: "+", with: "%2B"))"))["data"] as? [[String: Any]] ?? [])
                .compactMap { $0["body"] as? String }
        }
        let brandedText = try #require(texts("+919876543210").first)
        #expect(brandedText.range(of: #"^Acme Bank: [0-9]{6} is your verification code"#, options: .regularExpression) != nil, "\(brandedText)")
        let plainText = try #require(texts("+919876543211").first)
        #expect(plainText.range(of: #"^[0-9]{6} is your verification code"#, options: .regularExpression) != nil, "\(plainText)")
    }

    @Test(arguments: Store.allCases)
    func resubmissionNotice_beginsWithTheDisplayName(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ResubmissionTests.submitted(store)
        defer { f.close() }
        #expect(f.app.request("PATCH", "/v1/account", headers: f.auth, body: #"{"branding":{"display_name":"Acme Bank"}}"#).status == 200)
        #expect(ResubmissionTests.request(f, ResubmissionTests.selfieAgain).status == 200)
        f.app.application.runBackgroundWork()
        let outbox = f.json(f.app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []
        let notice = try #require(outbox.compactMap { $0["body"] as? String }.first { $0.hasSuffix("/j/\(f.id)") })
        #expect(notice.hasPrefix("Acme Bank: "), "\(notice)")
    }

    @Test(arguments: Store.allCases)
    func continuationLink_beginsWithTheDisplayName(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ContinuationTests.Fixture(store, devMode: true)
        defer { f.close() }
        #expect(f.app.request("PATCH", "/v1/account", headers: f.auth, body: #"{"branding":{"display_name":"Acme Bank"}}"#).status == 200)
        let (secret, _) = f.link()
        #expect(f.journey("POST", "/api/continuations/sms", body: #"{"secret":"\#(secret)"}"#, session: f.desktop).status == 202)
        f.app.application.runBackgroundWork()
        let outbox = f.app.json(f.app.request("GET", "/dev/outbox?to=%2B919876543210"))["data"] as? [[String: Any]] ?? []
        let text = try #require(outbox.first?["body"] as? String)
        #expect(text.hasPrefix("Acme Bank: ") && text.hasSuffix("#continue=\(secret)"), "\(text)")
    }

    @Test(arguments: Store.allCases)
    func consoleBrand_200_theOperatorsOwnAccount_401_signedOut(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try ConsoleTests.Fixture(store)
        defer { f.app.close() }
        let other = try f.app.application.accounts.createAccount(name: "Other")
        #expect(f.app.request("PATCH", "/v1/account", headers: [("Authorization", "Bearer \(other.secret.value)")],
                              body: #"{"branding":{"display_name":"Other Bank"}}"#).status == 200)
        #expect(f.app.console("GET", "/console/api/brand").status == 401)
        try f.activeOperator("asha@acme.example")
        let cookie = try #require(f.signIn("asha@acme.example"))
        #expect(f.json(f.app.console("GET", "/console/api/brand", cookie: cookie))["display_name"] is NSNull)
        #expect(f.patch(#"{"branding":{"display_name":"Acme Bank"}}"#).status == 200)
        let brand = f.json(f.app.console("GET", "/console/api/brand", cookie: cookie))
        #expect(brand["display_name"] as? String == "Acme Bank")
    }
}

extension ConsoleTests.Fixture {
    func patch(_ body: String) -> Response { app.request("PATCH", "/v1/account", headers: auth, body: body) }
}
