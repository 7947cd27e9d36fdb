import Foundation
import HostedHTTP
import HostedTestSupport
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
            try Self.script.write(to: publicDir.appendingPathComponent("main.js"), atomically: true, encoding: .utf8)
            try Self.style.write(to: publicDir.appendingPathComponent("css/page.css"), atomically: true, encoding: .utf8)
            // An image as large as the script: never compressed.
            try Data(Self.script.utf8).write(to: publicDir.appendingPathComponent("photo.png"))
            try FileManager.default.createSymbolicLink(atPath: publicDir.appendingPathComponent("link-out").path,
                                                       withDestinationPath: root.appendingPathComponent("secret.txt").path)
            files = StaticFiles(root: publicDir)
        }

        /// Text well past `StaticFiles.minimumGzipSize`, as a journey module and its style sheet.
        static let script = (0..<60).map { "export function step\($0)(element) { element.textContent = 'Step \($0)'; }\n" }.joined()
        static let style = (0..<60).map { ".step-\($0) { margin: \($0)px; color: #333; }\n" }.joined()

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

    @Test(arguments: [("main.js", Tree.script), ("css/page.css", Tree.style)])
    func textGoesOutGzippedToAClientThatAcceptsIt(_ path: String, _ content: String) throws {
        let tree = try Tree()
        let plain = tree.get(path)
        let gzipped = tree.get(path, headers: [("Accept-Encoding", "gzip, deflate, br")])
        #expect(gzipped.status == 200)
        #expect(gzipped.headers["Content-Encoding"] == "gzip")
        #expect(gzipped.headers["Vary"] == "Accept-Encoding")
        #expect(gzipped.headers["Content-Type"] == plain.headers["Content-Type"])
        #expect(gzipped.body.count < content.utf8.count / 4)
        #expect(try gunzip(gzipped.body) == Array(content.utf8))
        // Each form has its own validator, and each revalidates to 304 with its Vary.
        let etag = try #require(gzipped.headers["ETag"])
        #expect(etag != plain.headers["ETag"])
        let revalidated = tree.get(path, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)])
        #expect(revalidated.status == 304)
        #expect(revalidated.headers["Vary"] == "Accept-Encoding")
        #expect(revalidated.headers["ETag"] == etag)
        // The identity ETag does not validate the gzipped form.
        #expect(tree.get(path, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", plain.headers["ETag"] ?? "")]).status == 200)
        // Served again from the kept copy: the same bytes.
        #expect(tree.get(path, headers: [("Accept-Encoding", "gzip")]).body == gzipped.body)
    }

    @Test(arguments: [nil, "identity", "br", "deflate", "gzip;q=0", "GZIP; Q=0.000", "*;q=0", "gzip;q=0, *", "x-gzip;q=0",
                      "gzip;q=nonsense", ""])
    func textGoesOutAsItIsOtherwise(_ acceptEncoding: String?) throws {
        let tree = try Tree()
        let response = tree.get("main.js", headers: acceptEncoding.map { [("Accept-Encoding", $0)] } ?? [])
        #expect(response.status == 200)
        #expect(response.headers["Content-Encoding"] == nil, "\(acceptEncoding ?? "no Accept-Encoding")")
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.body == Array(Tree.script.utf8))
    }

    @Test(arguments: ["gzip", "x-gzip", "*", "br;q=1.0, gzip;q=0.5", "identity;q=0, GZip", "deflate, *;q=0.1"])
    func everySpellingOfGzipIsHeard(_ acceptEncoding: String) throws {
        let tree = try Tree()
        #expect(tree.get("main.js", headers: [("Accept-Encoding", acceptEncoding)]).headers["Content-Encoding"] == "gzip", "\(acceptEncoding)")
    }

    @Test func tinyFilesAndImagesAreNeverCompressed() throws {
        let tree = try Tree()
        for path in ["index.html", "app.js", "photo.png"] {
            let response = tree.get(path, headers: [("Accept-Encoding", "gzip")])
            #expect(response.headers["Content-Encoding"] == nil, "\(path)")
            #expect(response.headers["Vary"] == nil, "\(path)")
        }
    }
}
