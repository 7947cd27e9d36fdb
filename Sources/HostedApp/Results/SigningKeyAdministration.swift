import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedStorage

/// The command line's door to the signing keys (`hosted signing-keys rotate`): the same
/// `ResultSigning` a server builds, on a store the command opened.
public struct SigningKeyAdministration {
    let signing: ResultSigning

    /// Built by the composition root (`SigningKeyAdministration+Configuration`), which reads the
    /// secret key as `serve` does.
    init(signing: ResultSigning) {
        self.signing = signing
    }

    /// A detached JWS over `payload` with the newest key (the command line's evidence export).
    public func detachedSignature(over payload: [UInt8]) throws -> String {
        try signing.detachedSignature(over: payload)
    }

    /// Adds a key that signs from now on: `{"kid": new, "previous_kid": the one it replaces or null,
    /// "previous_published_until": when that one leaves the JWKS or null}` as JSON.
    public func rotate() throws -> [UInt8] {
        let (kid, previous) = try signing.rotate()
        let until = previous.map { _ in signing.clock.now().addingTimeInterval(ResultSigning.publishedFor) }
        struct Rotated: Encodable {
            let kid: String
            let previous_kid: String?
            let previous_published_until: String?
            func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(kid, forKey: .kid)
                try container.encode(previous_kid, forKey: .previous_kid)
                try container.encode(previous_published_until, forKey: .previous_published_until)
            }
            enum CodingKeys: String, CodingKey { case kid, previous_kid, previous_published_until }
        }
        return Array(try JSONCoding.encoder.encode(Rotated(kid: kid, previous_kid: previous,
                                                            previous_published_until: until.flatMap(APIObjects.timestamp))))
    }
}
