import Foundation
import HostedApp
import HostedHTTP
import Testing

/// `HOSTED_HEADER_TIMEOUT` and `HOSTED_MIN_BODY_RATE`: read, checked, and handed to the server
/// with the trusted proxies whose clients' shares of the body budget it counts.
@Suite struct SlowClientSettingsTests {
    @Test func theDefaultsAndTheirRanges() throws {
        let defaults = try Configuration.fromEnvironment([:])
        #expect(defaults.headerTimeoutSeconds == 10)
        #expect(defaults.minimumBodyBytesPerSecond == 8192)
        let set = try Configuration.fromEnvironment(["HOSTED_HEADER_TIMEOUT": "3", "HOSTED_MIN_BODY_RATE": "0"])
        #expect(set.headerTimeoutSeconds == 3)
        #expect(set.minimumBodyBytesPerSecond == 0)
        for (name, value) in [("HOSTED_HEADER_TIMEOUT", "0"), ("HOSTED_HEADER_TIMEOUT", "3601"), ("HOSTED_HEADER_TIMEOUT", "ten"),
                              ("HOSTED_MIN_BODY_RATE", "-1"), ("HOSTED_MIN_BODY_RATE", "1073741825")] {
            #expect(throws: Configuration.Invalid.self, "\(name)=\(value)") { try Configuration.fromEnvironment([name: value]) }
        }
    }

    @Test func theServerGetsThem() throws {
        let app = try TestApplication(store: .sqlite) {
            $0.headerTimeoutSeconds = 7
            $0.minimumBodyBytesPerSecond = 1234
            $0.trustedProxies = ["10.0.0.5"]
            $0.maximumBufferedBytes = 8 << 20
        }
        defer { app.close() }
        let server = app.application.makeServer()
        #expect(server.configuration.headerTimeoutSeconds == 7)
        #expect(server.configuration.minimumBodyBytesPerSecond == 1234)
        #expect(server.configuration.trustedProxies.addresses == ["10.0.0.5"])
        #expect(server.bodyBudget.share == 2 << 20)  // a quarter
    }
}
