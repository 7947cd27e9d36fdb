import HostedCrypto
import HostedHTTP
import HostedStorage

/// The signed results' factory and route (issue 40, docs/results.md).
extension Foundations {
    /// One `ResultSigning` per process: the journey signs return URLs with it, the evidence
    /// bundle its manifest, and `/.well-known/jwks.json` serves its public keys.
    func makeResultSigning() -> ResultSigning {
        ResultSigning(store: SigningKeyStore(database: database),
                      box: SecretBox.derive(from: secretKey.bytes(), label: ResultSigning.boxLabel),
                      issuer: configuration.publicURL.absoluteString, clock: clock, random: random, log: log,
                      keepsJWKS: configuration.keeps(.jwks), signsResults: !configuration.benchUnsignedResults,
                      keepsSigner: configuration.keeps(.signing))
    }

    /// The JWKS, for anyone.
    func registerResults(_ signing: ResultSigning, in routes: inout Router.Builder) {
        JWKSRoutes(signing: signing).register(in: &routes)
    }
}
