import Foundation
import HostedApp
import HostedStorage
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsMatchTheDesign() throws {
        let configuration = try Configuration.fromEnvironment([:])
        #expect(configuration.database == .sqlite(path: "./data/hosted.sqlite"))
        #expect(configuration.listen.description == "127.0.0.1:8080")
        #expect(configuration.publicURL.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.devMode == false)
        #expect(configuration.trustedProxies.isEmpty)
    }

    @Test func digiLockerSettings_httpsOrLoopbackOnly() throws {
        let configuration = try Configuration.fromEnvironment([
            "HOSTED_DIGILOCKER_AUTHORIZE_URL": "https://digilocker.example/public/oauth2/1/authorize",
            "HOSTED_DIGILOCKER_TOKEN_URL": "https://digilocker.example/public/oauth2/1/token",
            "HOSTED_DIGILOCKER_API_URL": "http://127.0.0.1:9999/api/",
            "HOSTED_DIGILOCKER_CLIENT_ID": "ABCD1234", "HOSTED_DIGILOCKER_CLIENT_SECRET": "s3cret-value",
        ])
        #expect(configuration.digiLocker.authorizeURL?.absoluteString == "https://digilocker.example/public/oauth2/1/authorize")
        #expect(configuration.digiLocker.apiURL?.absoluteString == "http://127.0.0.1:9999/api")
        #expect(configuration.digiLocker.clientID == "ABCD1234")
        for (name, value) in [("HOSTED_DIGILOCKER_TOKEN_URL", "http://digilocker.example/token"),
                              ("HOSTED_DIGILOCKER_API_URL", "ftp://digilocker.example"),
                              ("HOSTED_DIGILOCKER_AUTHORIZE_URL", "not a url"),
                              ("HOSTED_DIGILOCKER_CLIENT_ID", ""), ("HOSTED_DIGILOCKER_CLIENT_SECRET", "short")] {
            #expect(throws: Configuration.Invalid.self, "\(name)=\(value)") { try Configuration.fromEnvironment([name: value]) }
        }
    }

    @Test func servingRefusesHalfConfiguredDigiLockerAndRelay() throws {
        var partial = try Configuration.fromEnvironment(["HOSTED_DIGILOCKER_CLIENT_ID": "ABCD1234"])
        #expect(throws: Configuration.Invalid.self) { try partial.checkForServing() }
        partial.devMode = true  // the simulator fills the rest
        try partial.checkForServing()
        let relay = try Configuration.fromEnvironment(["HOSTED_SMS_RELAY_URL": "https://relay.example/sms"])
        #expect(throws: Configuration.Invalid.self) { try relay.checkForServing() }
        try Configuration.fromEnvironment([:]).checkForServing()
    }

    /// Issue 37: `serve --listen 127.0.0.1:9000` without a public URL handed out links to port 8080.
    @Test(arguments: [
        ("127.0.0.1:9000", "http://127.0.0.1:9000"), ("localhost:9001", "http://127.0.0.1:9001"),
        ("0.0.0.0:9002", "http://127.0.0.1:9002"), ("[::]:9003", "http://127.0.0.1:9003"),
        ("[::1]:9004", "http://[::1]:9004"), ("192.0.2.7:80", "http://192.0.2.7:80"),
    ])
    func publicURLDefaultsToTheListenAddress(_ listen: String, _ expected: String) throws {
        let configuration = try Configuration.fromEnvironment(["HOSTED_LISTEN": listen])
        #expect(configuration.publicURL.absoluteString == expected)
        #expect(configuration.publicURL.port != nil && configuration.publicURL.host != nil)
        // A public URL that is set wins, whichever is read first.
        var explicit = try Configuration.fromEnvironment(["HOSTED_PUBLIC_URL": "https://verify.example.com", "HOSTED_LISTEN": listen])
        #expect(explicit.publicURL.absoluteString == "https://verify.example.com")
        try explicit.apply(setting: "HOSTED_LISTEN", value: "127.0.0.1:9999")
        #expect(explicit.publicURL.absoluteString == "https://verify.example.com")
    }

    @Test func readsEveryVariable() throws {
        let configuration = try Configuration.fromEnvironment([
            "HOSTED_DATABASE_URL": "postgres://u@h/db", "HOSTED_LISTEN": "[::1]:9000",
            "HOSTED_PUBLIC_URL": "https://verify.example.com/", "HOSTED_DEV_MODE": "on",
            "HOSTED_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2", "HOSTED_SECRET_KEY": String(repeating: "k", count: 32),
            "HOSTED_DB_POOL_SIZE": "8", "HOSTED_THREADS": "3",
        ])
        #expect(configuration.database == .postgres(url: "postgres://u@h/db"))
        #expect(configuration.listen == .init(host: "::1", port: 9000))
        #expect(configuration.publicURL.absoluteString == "https://verify.example.com")
        #expect(configuration.devMode)
        #expect(configuration.trustedProxies == ["10.0.0.1", "10.0.0.2"])
        #expect(configuration.databasePoolSize == 8)
        #expect(configuration.threads == 3)
    }

    /// `HOSTED_DISABLE_MEMOS` names caches to build off for measuring (docs/performance.md).
    @Test func disableMemos_readsTheNamesAndRefusesAnUnknownOne() throws {
        #expect(try Configuration.fromEnvironment([:]).disabledMemos.isEmpty)
        let configuration = try Configuration.fromEnvironment(["HOSTED_DISABLE_MEMOS": "callers, local-reads,,gzip"])
        #expect(configuration.disabledMemos == [.callers, .localReads, .gzip])
        #expect(throws: Configuration.Invalid.self) { _ = try Configuration.fromEnvironment(["HOSTED_DISABLE_MEMOS": "callers,columns"]) }
    }

    @Test(arguments: [
        ("HOSTED_DATABASE_URL", "mysql://x"), ("HOSTED_LISTEN", "8080"), ("HOSTED_LISTEN", "127.0.0.1:99999"),
        ("HOSTED_PUBLIC_URL", "ftp://x"), ("HOSTED_PUBLIC_URL", "https://x/?q=1"), ("HOSTED_PUBLIC_URL", "https://x/#f"),
        ("HOSTED_DEV_MODE", "maybe"), ("HOSTED_SECRET_KEY", "short"), ("HOSTED_DB_POOL_SIZE", "0"),
    ])
    func rejectsBadValues(_ name: String, _ value: String) {
        #expect(throws: Configuration.Invalid.self) { _ = try Configuration.fromEnvironment([name: value]) }
    }
}
