import Foundation

/// The resolved provider: endpoints, credentials and the redirect URI registered with it.
struct DigiLockerEndpoints: Sendable {
    let authorizeURL: URL
    let tokenURL: URL
    let apiURL: URL
    let clientID: String
    let clientSecret: String
    let redirectURI: String

    static let callbackPath = "/journey/digilocker/callback"
}
