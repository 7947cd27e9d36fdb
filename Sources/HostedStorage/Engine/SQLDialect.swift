/// The SQL dialect of a store, for the few statements that differ (migrations are per dialect).
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}
