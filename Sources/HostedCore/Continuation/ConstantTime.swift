/// Comparisons whose time does not depend on where two values first differ, for what a client
/// guesses (the typed continuation number): every byte is looked at, whatever it holds.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes; the time depends only on their lengths.
    public static func equals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
