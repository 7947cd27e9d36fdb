import Foundation
import FuzzSupport
import HostedApp
import HostedCore
import HostedHTTP

// JSONObject(body:) and its accessors, read the way the API routes read them (a verification,
// a handoff, a workflow with its steps), then the domain rules the routes apply next.
// Also: JSONText.appendString (the hand-written JSON encoder) must round-trip every string, the
// workflow's lifecycle options stay in bounds, and an event's canonical data parses back.

func fuzzJSON(_ bytes: [UInt8]) {
    guard var body = try? JSONObject(body: bytes) else { return }
    // POST /v1/verifications
    let userID = body.string("user_id", required: true)
    let workflowKey = body.string("workflow", required: true)
    let mobile = body.string("mobile", required: true)
    let returnURL = body.string("return_url")
    let metadata = body.stringMap("metadata")
    // POST /v1/verifications/{id}/handoffs
    let expiresIn = body.int("expires_in_seconds")
    // POST /v1/workflows
    let key = body.string("key")
    let name = body.string("name")
    let steps = body.objects("steps", as: StepInput.self, fields: StepInput.fields)
    let expiresAfter = body.int("expires_after_seconds")
    let redactAfter = body.int("retention", member: "redact_after_seconds")
    _ = try? body.finish()

    var strings = [userID, workflowKey, mobile, returnURL, key, name].compactMap { $0 }
    if let userID { _ = VerificationRules.isValidUserID(userID) }
    if let mobile, let normalized = MobileNumber.normalized(mobile) {
        fuzzCheck(VerificationRules.isValidMobile(normalized), "normalized mobile is not valid: \(normalized)")
    }
    if let returnURL { _ = try? ReturnURLPolicy(devMode: false).validate(returnURL) }
    if let metadata {
        _ = VerificationRules.metadataErrors(metadata)
        strings += metadata.keys
        strings += metadata.values
    }
    _ = try? Handoff.lifetime(expiresIn)
    if let valid = try? Workflow.validate(key: key, name: name, steps: steps) {
        fuzzCheck(!valid.steps.isEmpty, "a valid workflow without steps")
        fuzzCheck(Set(valid.steps.map(\.id)).count == valid.steps.count, "duplicate step ids accepted")
    }

    // The workflow's lifecycle options: what passes stays inside the documented bounds.
    for devMode in [false, true] {
        guard let lifecycle = try? WorkflowLifecycle.validate(expiresAfterSeconds: expiresAfter.map(Int64.init),
                                                              redactAfterSeconds: redactAfter.map(Int64.init), devMode: devMode)
        else { continue }
        let floor: Int64 = devMode ? 1 : WorkflowLifecycle.expiresAfterBounds.lowerBound
        fuzzCheck(lifecycle.expiresAfterSeconds >= floor && lifecycle.expiresAfterSeconds <= WorkflowLifecycle.expiresAfterBounds.upperBound,
                  "expires_after_seconds out of bounds: \(lifecycle.expiresAfterSeconds)")
        if let kept = lifecycle.redactAfterSeconds {
            fuzzCheck(kept >= 1 && kept <= WorkflowLifecycle.redactAfterBounds.upperBound, "redact_after_seconds out of bounds: \(kept)")
        }
    }
    // An event's data, written canonically, must parse back to the same members.
    if let metadata {
        let canonical = Event.canonicalData(metadata.mapValues(EventValue.string))
        let parsed = (try? JSONSerialization.jsonObject(with: Data(canonical.utf8))) as? [String: String]
        fuzzCheck(parsed == metadata, "Event.canonicalData does not round-trip: \(canonical)")
    }

    strings.append(FuzzInput.text(bytes))
    for text in strings { checkJSONTextRoundTrip(text) }
}

/// JSONText writes access-log lines and verification objects by hand: what it writes must parse
/// back to the same string.
func checkJSONTextRoundTrip(_ text: String) {
    var line = ""
    JSONText.appendString(text, to: &line)
    let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? String
    fuzzCheck(parsed == text, "JSONText.appendString does not round-trip: \(Array(text.utf8)) -> \(line)")
    // The byte writer (access log, verification objects) writes exactly the same text.
    var bytes: [UInt8] = []
    JSONText.appendString(text, to: &bytes)
    fuzzCheck(bytes == Array(line.utf8), "JSONText.appendString bytes differ from the String writer for \(Array(text.utf8))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzJSON(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-json", fuzzJSON) }
}
#endif
