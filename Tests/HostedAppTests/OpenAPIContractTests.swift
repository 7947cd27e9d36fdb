import Foundation
import HostedApp
import Testing

/// `public/openapi.yaml` is the contract: every routed operation is documented and every
/// documented operation is routed.
@Suite struct OpenAPIContractTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("public/openapi.yaml")

    /// (METHOD, path) pairs from the document: paths at two spaces under `paths:`, operations at four.
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: document, encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            if inPaths, !line.isEmpty, !line.hasPrefix(" "), !line.hasPrefix("#") { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let path = currentPath, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let method = ["get", "post", "put", "patch", "delete"].first(where: { line == "    \($0):" }) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndEveryOperationRouted() throws {
        let app = try TestApplication()
        defer { app.close() }
        // The document describes the customer API and the probes; the journey's own calls
        // (/j/…), static assets and dev-mode pages are not part of it.
        let routed = Set(app.application.routeTable
            .filter { $0.pattern.hasPrefix("/v1/") || $0.pattern.hasPrefix("/.well-known/") || $0.pattern == "/healthz" || $0.pattern == "/readyz" }
            .map { "\($0.method) \($0.pattern)" })
        let documented = try Self.documentedOperations()
        #expect(documented.count >= 15)
        #expect(routed.subtracting(documented).isEmpty, "routed but not documented: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
    }

    @Test func theDocumentIsServed() throws {
        let app = try TestApplication { $0.publicDirectory = Self.document.deletingLastPathComponent() }
        defer { app.close() }
        let response = app.request("GET", "/v1/openapi.yaml")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/yaml; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("openapi: 3.1"))
    }
}
