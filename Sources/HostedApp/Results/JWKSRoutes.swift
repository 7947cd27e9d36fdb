import HostedHTTP

/// `GET /.well-known/jwks.json`: the public keys signed results and evidence bundles are checked
/// with, for anyone (no key, no session), cacheable for 5 minutes.
struct JWKSRoutes {
    let signing: ResultSigning

    func register(in routes: inout Router.Builder) {
        let signing = self.signing
        routes.add("GET", "/.well-known/jwks.json") { _, _ in try signing.jwksResponse() }
    }
}
