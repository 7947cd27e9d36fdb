import HostedCore

extension ContinuationService.Progress {
    /// The follow's body, written by hand (every answer of a follow, several a second per
    /// waiting computer): the bytes `JSONCoding.encoder` wrote for it, keys sorted
    /// (`blocked_seconds` and the continuation's `expires_at` only when there is one,
    /// `continuation` and `redirect_url` null when there is none).
    func json() -> [UInt8] {
        var object = JSONText.Object()
        if let blocked_seconds { object.int("blocked_seconds", blocked_seconds) }
        if let continuation {
            object.object("continuation") {
                if let expires = continuation.expires_at { $0.string("expires_at", expires) }
                $0.string("status", continuation.status)
            }
        } else {
            object.raw("continuation", "null")
        }
        object.string("redirect_url", redirect_url)
        object.string("status", status)
        object.objects("steps", steps) {
            $0.string("id", $1.id)
            $0.string("status", $1.status)
        }
        object.string("tag", tag)
        return object.finish()
    }
}
