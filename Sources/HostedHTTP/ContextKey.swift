/// A typed slot in `RequestContext`, e.g. `enum AuthenticatedAccount: ContextKey { typealias Value = Account }`.
public protocol ContextKey {
    associatedtype Value: Sendable
}
