import Foundation
import HostedApp
import HostedHTTP
import Testing

/// `HOSTED_HEADER_TIMEOUT`: read, checked, and handed to the server.
@Suite struct SlowClientSettingsTests {
    @Test func theDefaultsAndTheirRanges() throws {
        let defaults = try Configuration.fromEnvironment([:])
        #expect(defaults.headerTimeoutSeconds == 10)
        let set = try Configuration.fromEnvironment(["HOSTED_HEADER_TIMEOUT": "3"])
        #expect(set.headerTimeoutSeconds == 3)
        for (name, value) in [("HOSTED_HEADER_TIMEOUT", "0"), ("HOSTED_HEADER_TIMEOUT", "3601"), ("HOSTED_HEADER_TIMEOUT", "ten")] {
            #expect(throws: Configuration.Invalid.self, "\(name)=\(value)") { try Configuration.fromEnvironment([name: value]) }
        }
    }

    @Test func theServerGetsThem() throws {
        let app = try TestApplication(store: .sqlite) {
            $0.headerTimeoutSeconds = 7
        }
        defer { app.close() }
        let server = app.application.makeServer()
        #expect(server.configuration.headerTimeoutSeconds == 7)
    }
}
