/// Who a request's body is held for, as the route's admission found it — a journey's
/// verification, an API caller's account, a console operator — so its share of the server's body
/// budget is counted across all of that holder's connections and addresses. A name, not a secret.
public enum BodyHolder: ContextKey {
    public typealias Value = String
}
