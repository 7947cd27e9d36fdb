import HostedCore

/// The phone's prompt as the page reads it, after opening a continuation's link or the
/// customer's app handoff: `{"matching", "options"?, "context": {"browser", "os", "created_at"}}`.
struct ContinuationPromptBody: Encodable {
    let status: String?
    let matching: String
    let options: [String]?
    let context: Context

    struct Context: Encodable {
        let browser: String?
        let os: String?
        let created_at: String?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(browser, forKey: .browser)
            try c.encode(os, forKey: .os)
            try c.encode(created_at, forKey: .created_at)
        }

        enum CodingKeys: String, CodingKey { case browser, os, created_at }
    }

    /// `status` is `match` when the prompt answers a handoff (which otherwise answers `signed_in`).
    init(_ prompt: ContinuationPrompt, status: String? = nil) {
        self.status = status
        matching = prompt.matching.rawValue
        options = prompt.options
        context = Context(browser: prompt.origin.browser, os: prompt.origin.os, created_at: APIObjects.timestamp(prompt.requestedAt))
    }
}
