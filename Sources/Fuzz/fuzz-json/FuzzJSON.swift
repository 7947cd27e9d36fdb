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
    checkJSONValueAgreesWithFoundation(bytes)
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

/// The request-body reader (`JSONValue.parse`) and Foundation's `JSONSerialization` accept the
/// same UTF-8 texts and read the same values from them, except where they differ by design
/// (docs/decisions.md, "Request bodies are read by our own strict JSON reader"): Foundation also
/// reads UTF-16 and UTF-32 texts and a byte-order mark, accepts a comma before `]` or `}`, drops
/// U+FEFF from strings, refuses numbers a Double cannot hold, which the reader keeps as text
/// (a field that wants an integer refuses them), and rounds integers beyond 64 bits.
func checkJSONValueAgreesWithFoundation(_ bytes: [UInt8]) {
    guard isUTF8Encoded(bytes), !containsZeroWidthNoBreakSpace(bytes) else { return }
    let ours = JSONValue.parse(bytes)
    // With a repeated name the readers keep different members (ours the first; a later one's
    // value is read, then dropped, and may hold a number Foundation refuses): the API refuses
    // such bodies.
    guard ours?.firstRepeatedName == nil else { return }
    let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    guard let theirs else {
        guard let ours else { return }
        fuzzCheck(hasUnrepresentableNumber(ours.value), "JSONValue accepts what JSONSerialization refuses: \(bytes)")
        return
    }
    guard let ours else {
        fuzzCheck(JSONValue.parse(withoutTrailingCommas(bytes)) != nil,
                  "JSONValue refuses what JSONSerialization reads: \(bytes)")
        return
    }
    fuzzCheck(agree(ours.value, theirs), "JSONValue and JSONSerialization read different values from \(bytes)")
}

/// U+FEFF, which Foundation's strings drop (`"\u{FEFF}a"` reads as `"a"`), as UTF-8 or escaped.
private func containsZeroWidthNoBreakSpace(_ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self).lowercased()
    return text.contains("\u{FEFF}") || text.contains("\\ufeff")
}

/// The text with each comma that only whitespace separates from a closing `]` or `}` (outside
/// strings) removed: what Foundation reads when it accepts a trailing comma.
private func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
    var kept: [UInt8] = []
    var inString = false, escaped = false
    for (index, byte) in bytes.enumerated() {
        if inString {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
        } else if byte == UInt8(ascii: "\"") {
            inString = true
        } else if byte == UInt8(ascii: ","),
                  let next = bytes[(index + 1)...].first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
                  next == UInt8(ascii: "]") || next == UInt8(ascii: "}") {
            continue
        }
        kept.append(byte)
    }
    return kept
}

/// UTF-8 without a byte-order mark: the texts both readers must agree on (JSONSerialization
/// guesses UTF-16 or UTF-32 from zero bytes among the first four).
private func isUTF8Encoded(_ bytes: [UInt8]) -> Bool {
    !bytes.starts(with: [0xEF, 0xBB, 0xBF]) && !bytes.prefix(4).contains(0) && String(validating: bytes, as: UTF8.self) != nil
}

private func hasUnrepresentableNumber(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let text): return !(Double(text)?.isFinite ?? false)
    case .array(let elements): return elements.contains(where: hasUnrepresentableNumber)
    case .object(let members): return members.values.contains(where: hasUnrepresentableNumber)
    default: return false
    }
}

private func agree(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null: return theirs is NSNull
    case .bool(let value): return (theirs as? NSNumber).map { String(cString: $0.objCType) == "c" && $0.boolValue == value } ?? false
    case .number(let text):
        guard let number = theirs as? NSNumber, String(cString: number.objCType) != "c", let double = Double(text) else { return false }
        if number.doubleValue == double || !double.isFinite { return true }
        // Foundation reads integers beyond 64 bits as NSDecimalNumber, whose Double is off in the
        // last digit (99999999999999999999999999 → 9.999999999999999e25); none fits an Int.
        return number is NSDecimalNumber && abs(number.doubleValue - double) <= abs(double) * 1e-12
    case .string(let text): return (theirs as? String) == text && !(theirs is NSNumber)
    case .array(let elements):
        guard let array = theirs as? [Any], array.count == elements.count else { return false }
        return zip(elements, array).allSatisfy { agree($0, $1) }
    case .object(let members):
        guard let object = theirs as? [String: Any], object.count == members.count else { return false }
        return members.allSatisfy { name, member in
            object[name].map { agree(member, $0) } ?? false
        }
    }
}

/// JSONText writes access-log lines and verification objects by hand: what it writes must parse
/// back to the same string.
func checkJSONTextRoundTrip(_ text: String) {
    var line = ""
    JSONText.appendString(text, to: &line)
    fuzzCheck(JSONValue.parse(Array(line.utf8))?.value == .string(text),
              "JSONText.appendString does not read back: \(Array(text.utf8)) -> \(line)")
    // Foundation's strings drop U+FEFF, so it is an oracle only for texts without one.
    if !text.unicodeScalars.contains("\u{FEFF}") {
        let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? String
        fuzzCheck(parsed == text, "JSONText.appendString does not round-trip: \(Array(text.utf8)) -> \(line)")
    }
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
