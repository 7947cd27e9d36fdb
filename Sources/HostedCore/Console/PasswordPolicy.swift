/// What an operator's password must be: 12 to 256 characters, not one of the commonly used
/// passwords below (compared case-insensitively), not the operator's own email, and not one
/// character repeated. The hash is Argon2id (`HostedCrypto.PasswordHasher`).
public enum PasswordPolicy {
    public static let minimumLength = 12
    /// Bounds the work one sign-in can ask of the hasher.
    public static let maximumLength = 256

    /// Why `password` is refused, or nil when it is allowed.
    public static func problem(with password: String, email: String) -> String? {
        // Code points, as NIST SP 800-63B counts a password's length.
        let count = password.unicodeScalars.count
        if count < minimumLength { return "must be at least \(minimumLength) characters" }
        if count > maximumLength { return "must be at most \(maximumLength) characters" }
        let lowered = password.lowercased()
        if Set(lowered).count == 1 { return "must not be one character repeated" }
        if lowered == email.lowercased() || lowered == email.lowercased().split(separator: "@").first.map(String.init) {
            return "must not be your email address"
        }
        if common.contains(lowered) { return "is a commonly used password; choose another" }
        return nil
    }

    /// Commonly used passwords of 12 characters or more (shorter ones are refused by length),
    /// lower-cased: drawn from the public breach-corpus top lists.
    static let common: Set<String> = [
        "123456789012", "1234567890123", "12345678901234", "123456789012345", "1234567890qwerty",
        "1234567890-=", "0987654321qwerty", "098765432112", "112233445566", "111222333444",
        "123123123123", "123321123321", "121212121212", "123412341234", "147258369147",
        "147852369874", "159357159357", "741852963741", "789456123789", "987654321987",
        "000000000000", "qwertyuiopas", "qwertyuiop12", "qwertyuiop123", "qwertyuiopasdfgh",
        "qwertyuiopasdfghjkl", "qwertyuiopasdfghjklzxcvbnm", "asdfghjklqwe", "asdfghjkl123",
        "zxcvbnmasdfg", "1qaz2wsx3edc", "1qaz2wsx3edc4rfv", "qazwsxedcrfv", "qazwsxedc123",
        "1q2w3e4r5t6y", "1q2w3e4r5t6y7u", "q1w2e3r4t5y6", "a1b2c3d4e5f6", "abc123abc123",
        "abcdefghijkl", "abcd1234abcd", "abcdefgh1234", "aaaa11112222", "password1234",
        "password12345", "password123456", "password123!", "password@123", "password#123",
        "passwordpassword", "password1password1", "mypassword123", "mypassword1234", "newpassword123",
        "changeme1234", "changeme123!", "letmein12345", "letmein123456", "welcome12345",
        "welcome123456", "welcome@1234", "welcome@12345", "welcometothejungle", "iloveyou1234",
        "iloveyou123456", "iloveyouiloveyou", "administrator", "administrator1", "administrator123",
        "admin1234567", "admin@123456", "adminadmin123", "superman1234", "superman12345",
        "batman123456", "football1234", "football12345", "baseball1234", "basketball12",
        "basketball123", "cricket12345", "sachin123456", "sachintendulkar", "princess1234",
        "sunshine1234", "starwars1234", "pokemon12345", "chocolate123", "butterfly123",
        "monkey123456", "dragon123456", "shadow123456", "master123456", "michael12345",
        "jennifer1234", "computer1234", "internet1234", "whatever1234", "trustno11234",
        "elephant1234", "qwerty123456", "qwerty1234567", "qwerty12345678", "qwertyqwerty",
        "qwerty@12345", "asdfasdfasdf", "asdf1234asdf", "zaq12wsxcde3", "zaq1zaq1zaq1",
        "india1234567", "india@123456", "hindustan123", "bharat123456", "mumbai123456",
        "delhi1234567", "bangalore123", "hyderabad123", "chennai12345", "kolkata12345",
        "ganesh123456", "krishna12345", "jaishreeram1", "jaishreeram123", "omnamahshivaya",
        "harekrishna1", "loveyou12345", "mylove123456", "sweetheart12", "sweetheart123",
        "happiness123", "beautiful123", "rockstar1234", "liverpool123", "manchester12",
        "manchesterunited", "arsenal12345", "chelsea12345", "barcelona123", "realmadrid12",
        "spiderman123", "ironman12345", "harrypotter1", "harrypotter123", "minecraft123",
        "fortnite1234", "playstation1", "playstation2", "playstation4", "nintendo1234",
        "samsung12345", "iphone123456", "google123456", "facebook1234", "linkedin1234",
        "microsoft123", "windows12345", "ubuntu123456", "hosted123456", "verification",
        "verification1", "identity1234", "security1234", "secretpassword", "topsecret123",
        "correcthorsebatterystaple", "thequickbrownfox", "letmeinplease", "opensesame12",
        "summer123456", "winter123456", "spring123456", "autumn123456", "january12345",
        "december1234", "monday123456", "friday123456", "p@ssw0rd1234", "p@ssword1234",
        "passw0rd1234", "pa55word1234", "pa$$word1234", "qwer1234qwer", "1234qwerasdf",
        "1234qwer1234", "asdf1234qwer", "abcdef123456", "123456abcdef", "abc123456789",
        "987654321abc", "a123456789012", "1234567890a", "12345678910", "123456789101",
        "12345678910111213", "aaaaaa111111", "qqqqqq111111", "zzzzzz111111", "pass12345678",
    ]
}
