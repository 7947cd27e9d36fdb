import Foundation
import HostedHTTP
import Testing

@Suite struct StaticFilesTests {
    /// A temporary tree: root/public/{index.html, app.js, css/site.css, .hidden, link-out → ../secret.txt}
    /// and root/secret.txt outside the served directory.
    struct Tree {
        let root: URL
        let files: StaticFiles

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
            let publicDir = root.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: publicDir.appendingPathComponent("css"), withIntermediateDirectories: true)
            try "<h1>hi</h1>".write(to: publicDir.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
            try "export {}".write(to: publicDir.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
            try "body{}".write(to: publicDir.appendingPathComponent("css/site.css"), atomically: true, encoding: .utf8)
            try "dot".write(to: publicDir.appendingPathComponent(".hidden"), atomically: true, encoding: .utf8)
            try "TOP SECRET".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: publicDir.appendingPathComponent("link-out").path,
                                                       withDestinationPath: root.appendingPathComponent("secret.txt").path)
            files = StaticFiles(root: publicDir)
        }

        func get(_ rawPath: String, headers: [(String, String)] = []) -> Response {
            do {
                return try files.response(rawPath: rawPath[...], request: Request(method: "GET", path: "/assets/" + rawPath,
                                                                                  headers: HTTPHeaders(headers)))
            } catch let problem as Problem {
                return problem.response
            } catch {
                return Response(status: 599)
            }
        }
    }

    @Test func servesFilesWithTypesAndValidators() throws {
        let tree = try Tree()
        let html = tree.get("index.html")
        #expect(html.status == 200)
        #expect(html.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(html.headers["Cache-Control"] == StaticFiles.cacheControl)
        #expect(html.headers["X-Content-Type-Options"] == "nosniff")
        #expect(String(decoding: html.body, as: UTF8.self) == "<h1>hi</h1>")
        #expect(tree.get("app.js").headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(tree.get("css/site.css").headers["Content-Type"] == "text/css; charset=utf-8")

        let etag = try #require(html.headers["ETag"])
        let revalidated = tree.get("index.html", headers: [("If-None-Match", etag)])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
    }

    @Test(arguments: [
        "../secret.txt", "%2e%2e/secret.txt", "%2E%2E%2Fsecret.txt", "..%2fsecret.txt", "css/../../secret.txt",
        "css%2f..%2f..%2fsecret.txt", "index.html%00.png", "%00", ".hidden", "%2ehidden", "link-out", "css", "css/",
        "", "/etc/passwd", "%2fetc%2fpasswd", "..\\secret.txt", "..%5csecret.txt", "%252e%252e/secret.txt", "nope.html",
    ])
    func refusesEveryWayOut(_ path: String) throws {
        let tree = try Tree()
        let response = tree.get(path)
        #expect(response.status == 404)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("TOP SECRET"))
    }
}
