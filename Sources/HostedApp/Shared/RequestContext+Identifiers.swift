import HostedCore
import HostedHTTP

extension RequestContext {
    /// The path parameter `name` as an id of `kind`. One that cannot be such an id names nothing:
    /// it is refused as `notFound(what)`, exactly like an id that names nothing of this account.
    func id(_ kind: ObjectID.Kind, _ name: String = "id", what: String) throws -> ObjectID {
        guard let id = ObjectID(kind, parsing: parameters[name] ?? "") else { throw DomainError.notFound(what: what) }
        return id
    }

    /// `{id}` as a verification id.
    func verificationID() throws -> ObjectID { try id(.verification, what: "verification") }
}
