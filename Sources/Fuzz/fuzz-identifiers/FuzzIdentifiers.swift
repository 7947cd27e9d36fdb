import FuzzSupport
import HostedCore

// The small readers of client-sent strings: MobileNumber.normalized, ObjectID(_:parsing:) for
// every kind, ProfileForm.validate, Account.validateName, the presented API key, bearer secret
// and one-time code, Base64URL.decode and VerificationRules.isValidUserID; and the console's:
// OperatorRules.normalizedEmail, TOTP.presented, PasswordPolicy.problem, ReviewNoteRules.validated;
// and a continuation's pick, ContinuationRules.presentedNumber.
//
// Input: lines. Line 1 is the text every reader gets (and the profile's full name); line 2 the
// date of birth; line 3 "today" (default 2026-11-29).

func fuzzIdentifiers(_ bytes: [UInt8]) {
    let lines = FuzzInput(bytes).pieces(maxPieces: 3).map(FuzzInput.text)
    let text = lines[0]

    if let mobile = MobileNumber.normalized(text) {
        fuzzCheck(VerificationRules.isValidMobile(mobile), "normalized mobile is not E.164: \(mobile)")
        fuzzCheck(MobileNumber.normalized(mobile) == mobile, "normalizing is not idempotent: \(mobile)")
    }
    let kinds = ObjectID.Kind.allCases.filter { kind in
        guard let id = ObjectID(kind, parsing: text) else { return false }
        fuzzCheck(id.rawValue == text && id.description == text && id.kind == kind, "ObjectID changed \(text)")
        return true
    }
    fuzzCheck(kinds.count <= 1, "\(text) parses as several kinds: \(kinds)")

    let today = lines.count > 2 ? lines[2] : "2026-11-29"
    if let form = try? ProfileForm.validate(fullName: text, dateOfBirth: lines.count > 1 ? lines[1] : nil, today: today) {
        fuzzCheck(!form.fullName.isEmpty && form.fullName.count <= 200, "full name accepted: \(form.fullName)")
        fuzzCheck(form.dateOfBirth.utf8.count == 10 && form.dateOfBirth <= today, "date of birth accepted: \(form.dateOfBirth)")
    }
    if let name = try? Account.validateName(text) {
        fuzzCheck(!name.isEmpty && name.count <= Account.maximumNameLength, "account name accepted: \(name)")
    }
    if let key = APIKeySecret(presented: text) {
        // What may be shown: the prefix of its kind and eight characters more, never more of the key
        // (a live key is "sk_" and 43 characters, which may begin with "test_").
        let shown = text.utf8.count == 3 + 43 ? 3 + 8 : 8 + 8
        fuzzCheck(key.value == text && key.displayPrefix == String(text.prefix(shown)), "API key changed: \(text)")
    }
    if let secret = BearerSecret(presented: text) {
        fuzzCheck(Base64URL.decode(secret.value)?.count == BearerSecret.byteCount, "bearer secret of the wrong size")
    }
    if let code = OneTimeCode(presented: text) {
        fuzzCheck(code.digits.utf8.count == 6, "code \(code.digits)")
    }
    fuzzCheck(Base64URL.isCanonical(text.utf8) == (Base64URL.decode(text) != nil), "isCanonical disagrees with decode for \(text)")
    if let decoded = Base64URL.decode(text) {
        fuzzCheck(Base64URL.decode(Base64URL.encode(decoded)) == decoded, "base64url round trip failed for \(text)")
        // Only the canonical text of a byte string is accepted (no padding, zero unused bits).
        fuzzCheck(Base64URL.encode(decoded) == text, "base64url accepted a non-canonical text: \(text)")
    }
    _ = VerificationRules.isValidUserID(text)

    if let email = OperatorRules.normalizedEmail(text) {
        fuzzCheck(OperatorRules.normalizedEmail(email) == email && email.utf8.count <= 254 && email.contains("@"),
                  "email normalizing is not idempotent: \(email)")
    }
    if let code = TOTP.presented(text) {
        fuzzCheck(code.utf8.count == TOTP.digits && code.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "TOTP code \(code)")
    }
    if PasswordPolicy.problem(with: text, email: lines.count > 1 ? lines[1] : "a@b.in") == nil {
        fuzzCheck((PasswordPolicy.minimumLength...PasswordPolicy.maximumLength).contains(text.unicodeScalars.count),
                  "password of a refused length accepted")
    }
    if let pick = ContinuationRules.presentedNumber(text) {
        fuzzCheck(pick == text && pick.utf8.count == 2 && pick.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "pick \(pick)")
    }
    if let note = ReviewNoteRules.validated(text) {
        fuzzCheck(!note.isEmpty && note.count <= ReviewNoteRules.maximumLength, "note accepted: \(note.count)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzIdentifiers(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-identifiers", fuzzIdentifiers) }
}
#endif
