import Foundation
import HostedApp
import HostedHTTP
import HostedTestSupport
import Testing

@Suite struct ApplicationTests {
    @Test func healthz_200() throws {
        let app = try TestApplication()
        defer { app.close() }
        let response = app.request("GET", "/healthz")
        #expect(response.status == 200)
        #expect(app.json(response)["status"] as? String == "ok")
    }

    /// The journey's scripts and styles, as phones on slow networks fetch them: gzipped to a
    /// client that accepts it (the very bytes of the file once decompressed), as they are to one
    /// that does not, and `Vary: Accept-Encoding` on both.
    @Test func journeyAssets_200_gzippedWhenAccepted() throws {
        let app = try TestApplication()
        defer { app.close() }
        let directory = Configuration().publicDirectory.appendingPathComponent("journey")
        let names = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".js") || $0.hasSuffix(".css") }.sorted()
        #expect(names.contains("main.js") && names.contains("journey.css"))
        var (plainTotal, gzippedTotal) = (0, 0)
        for name in names {
            let file = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            let gzipped = app.request("GET", "/assets/journey/\(name)", headers: [("Accept-Encoding", "gzip, deflate, br")])
            let plain = app.request("GET", "/assets/journey/\(name)", headers: [("Accept-Encoding", "gzip;q=0, identity")])
            #expect(gzipped.status == 200 && plain.status == 200, "\(name)")
            #expect(plain.body == file && plain.headers["Content-Encoding"] == nil, "\(name)")
            guard file.count >= StaticFiles.minimumGzipSize else {
                #expect(gzipped.body == file && gzipped.headers["Vary"] == nil, "\(name): small, sent as it is")
                continue
            }
            #expect(gzipped.headers["Content-Encoding"] == "gzip", "\(name)")
            #expect(gzipped.headers["Vary"] == "Accept-Encoding" && plain.headers["Vary"] == "Accept-Encoding", "\(name)")
            #expect(gzipped.headers["ETag"] != plain.headers["ETag"], "\(name)")
            #expect(try gunzip(gzipped.body) == file, "\(name)")
            plainTotal += file.count
            gzippedTotal += gzipped.body.count
        }
        // About 100 KB of scripts and styles come to well under half.
        #expect(plainTotal > 50_000 && gzippedTotal * 5 < plainTotal * 2, "\(plainTotal) → \(gzippedTotal)")
    }

    @Test func readyz_200_whenMigrated() throws {
        let app = try TestApplication()
        defer { app.close() }
        #expect(app.request("GET", "/readyz").status == 200)
    }

    @Test func readyz_503_whenMigrationsPending() throws {
        let app = try TestApplication(migrate: false)
        defer { app.close() }
        let response = app.request("GET", "/readyz")
        #expect(response.status == 503)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(app.json(response)["code"] as? String == "not_ready")
    }

    @Test func getAccount_200_withValidKey() throws {
        let app = try TestApplication()
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme Bank")
        let response = app.request("GET", "/v1/account", headers: [("Authorization", "Bearer \(created.secret.value)")])
        #expect(response.status == 200)
        // Without branding (issue 44) every member of `branding` is there, null.
        let unbranded: NSDictionary = ["display_name": NSNull(), "accent_color": NSNull(), "support_url": NSNull(), "logo_url": NSNull()]
        #expect(app.json(response) as NSDictionary == ["object": "account", "id": created.account.id.rawValue, "name": "Acme Bank",
                                                        "branding": unbranded] as NSDictionary)
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func getAccount_401_withoutOrWithBadKey() throws {
        let app = try TestApplication()
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme")
        let other = "sk_" + String(repeating: "A", count: 43)
        for header in [nil, "", "Bearer", "Bearer ", "Basic \(created.secret.value)", "Bearer \(other)",
                       "Bearer \(created.secret.value)x", "Bearer sk_short", "bearer\(created.secret.value)"] {
            let response = app.request("GET", "/v1/account", headers: header.map { [("Authorization", $0)] } ?? [])
            #expect(response.status == 401, "header \(String(describing: header))")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["WWW-Authenticate"] == "Bearer")
            #expect(!String(decoding: response.body, as: UTF8.self).contains(created.secret.value))
        }
        // Case-insensitive scheme, as HTTP says.
        #expect(app.request("GET", "/v1/account", headers: [("Authorization", "bearer \(created.secret.value)")]).status == 200)
    }

    @Test func getAccount_401_afterRevoke_andOtherKeysKeepWorking() throws {
        let app = try TestApplication()
        defer { app.close() }
        let created = try app.application.accounts.createAccount(name: "Acme")
        let second = try app.application.accounts.createKey(accountID: created.account.id)
        let first = [("Authorization", "Bearer \(created.secret.value)")]
        #expect(app.request("GET", "/v1/account", headers: first).status == 200)
        #expect(try app.application.accounts.revokeKey(created.key.id))
        #expect(app.request("GET", "/v1/account", headers: first).status == 401)
        #expect(app.request("GET", "/v1/account", headers: [("Authorization", "Bearer \(second.secret.value)")]).status == 200)
    }

    @Test func unknownRoute_404_andWrongMethod_405() throws {
        let app = try TestApplication()
        defer { app.close() }
        #expect(app.request("GET", "/v2/nothing").status == 404)
        let wrong = app.request("DELETE", "/v1/account")
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "GET, PATCH, HEAD")  // PATCH: the branding (issue 44)
    }

    @Test func assets_servePublicFilesOnly() throws {
        let app = try TestApplication { $0.publicDirectory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("public") }
        defer { app.close() }
        let css = app.request("GET", "/assets/styles.css")
        #expect(css.status == 200)
        #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
        for path in ["/assets/..%2fPackage.swift", "/assets/%2e%2e/Package.swift", "/assets/../Package.swift"] {
            #expect(app.request("GET", path).status == 404)
        }
    }
}
