import Foundation

/// Where DigiLocker is and who Hosted is to it. Unset fields fall back to the dev simulator in
/// dev mode; outside dev mode all five must be set for the DigiLocker step to work.
public struct DigiLockerSettings: Sendable, Equatable {
    /// The consent screen, e.g. `https://digilocker.meripehchaan.gov.in/public/oauth2/1/authorize`.
    public var authorizeURL: URL?
    /// The code exchange, e.g. `https://digilocker.meripehchaan.gov.in/public/oauth2/1/token`.
    public var tokenURL: URL?
    /// The base of the document calls, e.g. `https://digilocker.meripehchaan.gov.in/public/oauth2`
    /// (`/3/xml/eaadhaar`, `/2/files/issued`, `/1/xml/{uri}` are appended).
    public var apiURL: URL?
    public var clientID: String?
    public var clientSecret: String?

    public init() {}

    /// The client id and secret the simulator accepts when none are configured (dev mode only).
    static let simulatorClientID = "hosted-dev"
    static let simulatorClientSecret = "hosted-dev-simulator-secret"

    /// The simulator's endpoints: what test verifications always use (and dev mode by default).
    static func simulator(publicURL: URL) -> DigiLockerEndpoints {
        let simulator = publicURL.appendingPathComponent("sim/digilocker")
        return DigiLockerEndpoints(authorizeURL: simulator.appendingPathComponent("authorize"),
                                   tokenURL: simulator.appendingPathComponent("token"), apiURL: simulator.appendingPathComponent("api"),
                                   clientID: simulatorClientID, clientSecret: simulatorClientSecret,
                                   redirectURI: publicURL.absoluteString + DigiLockerEndpoints.callbackPath)
    }

    /// The endpoints to use: the configured ones, the simulator's in dev mode, else nil.
    func resolved(publicURL: URL, devMode: Bool) -> DigiLockerEndpoints? {
        let simulator = publicURL.appendingPathComponent("sim/digilocker")
        guard let authorize = authorizeURL ?? (devMode ? simulator.appendingPathComponent("authorize") : nil),
              let token = tokenURL ?? (devMode ? simulator.appendingPathComponent("token") : nil),
              let api = apiURL ?? (devMode ? simulator.appendingPathComponent("api") : nil),
              let id = clientID ?? (devMode ? Self.simulatorClientID : nil),
              let secret = clientSecret ?? (devMode ? Self.simulatorClientSecret : nil)
        else { return nil }
        return DigiLockerEndpoints(authorizeURL: authorize, tokenURL: token, apiURL: api, clientID: id, clientSecret: secret,
                                   redirectURI: publicURL.absoluteString + DigiLockerEndpoints.callbackPath)
    }
}
