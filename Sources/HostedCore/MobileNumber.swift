import Foundation

/// Normalises a mobile number to E.164, so `+91 98765-43210` and `+919876543210` are one number
/// (for matching and for counting limits). Needs the leading `+` and country code.
public enum MobileNumber {
    public static func normalized(_ text: String) -> String? {
        var digits = ""
        var sawPlus = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "+" where digits.isEmpty && !sawPlus: sawPlus = true
            case "0"..."9": digits.unicodeScalars.append(scalar)
            case " ", "-", "(", ")", ".", "\u{00A0}": continue
            default: return nil
            }
        }
        let candidate = "+" + digits
        return sawPlus && VerificationRules.isValidMobile(candidate) ? candidate : nil
    }
}
