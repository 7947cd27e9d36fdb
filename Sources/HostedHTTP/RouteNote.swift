import Synchronization

/// The route pattern a request matched, noted by the router as it dispatches, so the server's
/// metrics need not match the path a second time.
///
/// Behind a `Mutex` (a deferred response is answered on another thread than the one that
/// matched); one is made per request, and a `Mutex` is stored inline, where an `NSLock` was an
/// object of its own to allocate and initialise.
final class RouteNote: Sendable {
    private let noted = Mutex<(pattern: String?, loggedPath: String?)>((nil, nil))

    var pattern: String? {
        get { noted.withLock { $0.pattern } }
        set { noted.withLock { $0.pattern = newValue } }
    }

    /// The path as the access log shows it, when the route masks a parameter (nil: as sent).
    var loggedPath: String? {
        get { noted.withLock { $0.loggedPath } }
        set { noted.withLock { $0.loggedPath = newValue } }
    }
}
