import HostedHTTP

/// `GET /assets/…`: the files of `public/`.
struct AssetRoutes {
    let files: StaticFiles
    static let prefix = "/assets/"

    func register(in routes: inout Router.Builder) {
        routes.add("GET", "/assets/{path...}") { request, _ in
            // The raw path is used, not the router's decoded parameter, so StaticFiles decodes and
            // checks each segment itself (an encoded slash never becomes a separator).
            try files.response(rawPath: request.path.dropFirst(Self.prefix.count), request: request)
        }
    }
}
