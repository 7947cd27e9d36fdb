/// Where the store lives: `sqlite:PATH` or `postgres://…` / `postgresql://…`.
public enum DatabaseURL: Equatable, Sendable {
    case sqlite(path: String)
    case postgres(url: String)

    public static let `default` = DatabaseURL.sqlite(path: "./data/hosted.sqlite")

    public init?(_ text: String) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { return nil }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            return nil
        }
    }

    /// Opens the store with `poolSize` connections.
    public func open(poolSize: Int) throws -> any Database {
        switch self {
        case .sqlite(let path): try SQLiteDatabase(path: path, poolSize: poolSize)
        case .postgres(let url): try PostgresDatabase(url: url, poolSize: poolSize)
        }
    }

    /// A form safe to log: the PostgreSQL password is masked.
    public var redacted: String {
        switch self {
        case .sqlite(let path): return "sqlite:" + path
        case .postgres(let url):
            guard let at = url.lastIndex(of: "@"), let schemeEnd = url.range(of: "://") else { return url }
            let userInfo = url[schemeEnd.upperBound..<at]
            guard let colon = userInfo.firstIndex(of: ":") else { return url }
            return String(url[..<colon]) + ":***" + String(url[at...])
        }
    }
}
