import FuzzSupport
import HostedCore

// ReturnURLPolicy: validate and requireRegistered on arbitrary strings, in dev and non-dev mode;
// the same strings through WebhookURLPolicy, RetrySchedule's parser and AddressPolicy.
//
// Input: lines. The first line is the URL a client sends; the others are the account's
// registered return URLs.

func fuzzReturnURL(_ bytes: [UInt8]) {
    let lines = FuzzInput(bytes).pieces(maxPieces: 9).map(FuzzInput.text)
    let candidate = lines[0]
    let registered = Array(lines.dropFirst())
    let production = ReturnURLPolicy(devMode: false)
    let dev = ReturnURLPolicy(devMode: true)

    let accepted = try? production.validate(candidate)
    let acceptedInDev = try? dev.validate(candidate)
    if let accepted {
        fuzzCheck(accepted.url == candidate, "accepted URL changed: \(accepted.url)")
        fuzzCheck(candidate.lowercased().hasPrefix("https://"), "non-https URL accepted outside dev mode: \(candidate)")
        fuzzCheck(acceptedInDev == accepted, "dev mode refuses or changes what production accepts: \(candidate)")
        // The comparison form is itself a valid URL with the same comparison form.
        let again = try? production.validate(accepted.canonical)
        fuzzCheck(again?.canonical == accepted.canonical,
                  "canonical form is not stable: \(candidate) -> \(accepted.canonical) -> \(String(describing: again?.canonical))")
    }
    if let acceptedInDev {
        fuzzCheck(acceptedInDev.url.utf8.count <= ReturnURLPolicy.maximumLength, "overlong URL accepted")
        fuzzCheck(acceptedInDev.url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x5C }), "unsafe byte accepted: \(candidate)")
        fuzzCheck(!acceptedInDev.url.contains("#"), "fragment accepted: \(candidate)")
    }
    fuzzWebhookRules(candidate, bytes)
    for policy in [production, dev] {
        if let match = try? policy.requireRegistered(candidate, registered: registered) {
            fuzzCheck(registered.contains(match.url), "matched URL is not a registered one: \(match.url)")
            fuzzCheck((try? policy.validate(match.url).canonical) == match.canonical, "registered URL has another canonical form")
        }
    }
}

/// The webhook URL rules, the retry schedule's parser and the address classifier never trap, and
/// what they accept keeps their promises.
func fuzzWebhookRules(_ candidate: String, _ bytes: [UInt8]) {
    for devMode in [false, true] {
        if let target = try? WebhookURLPolicy(devMode: devMode).validate(candidate) {
            fuzzCheck(target.url == candidate && candidate.utf8.count <= WebhookURLPolicy.maximumLength, "webhook URL changed or too long")
            fuzzCheck(target.scheme == "https" || (devMode && target.scheme == "http"), "webhook scheme \(target.scheme) accepted")
            fuzzCheck(!candidate.contains("#") && (1...65535).contains(target.port), "fragment or bad port accepted: \(candidate)")
            fuzzCheck(!target.host.contains("@"), "user information accepted: \(candidate)")
        }
    }
    if let schedule = RetrySchedule(parsing: candidate) {
        fuzzCheck((1...20).contains(schedule.delays.count), "schedule of \(schedule.delays.count) steps")
        for (index, step) in schedule.delays.enumerated() {
            fuzzCheck(step >= 0 && step <= RetrySchedule.maximumDelay, "step out of bounds")
            let delay = schedule.delay(afterFailedAttempt: index + 1, jitter: 0.5, retryAfter: Double(bytes.count))
            fuzzCheck(delay.map { $0 >= 0 && $0 <= RetrySchedule.maximumDelay } ?? false, "delay out of bounds")
        }
    }
    for length in [4, 16] where bytes.count >= length {
        let verdict = AddressPolicy.classify(Array(bytes.prefix(length)))
        fuzzCheck(!AddressPolicy.allows(verdict, devMode: true) || verdict == .public || verdict == .loopback, "allowed \(verdict)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzReturnURL(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-return-url", fuzzReturnURL) }
}
#endif
