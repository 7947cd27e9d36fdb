/// The kind of browser a journey runs in, from its User-Agent by one small table, so a
/// customer sees whether in-app browsers do worse than phones. Only the class is kept, never
/// the User-Agent itself.
///
/// | class | when the User-Agent… |
/// |---|---|
/// | `android_webview` | is Android with `; wv)` or `Version/4.0 Chrome/` (the WebView's marks) |
/// | `ios_webview` | is an iPhone, iPad or iPod with `AppleWebKit` and no `Safari/` (WKWebView), or names an app's in-app browser (`FBAN`, `FBAV`, `Instagram`, `Line/`, `GSA/`) |
/// | `custom_tab` | is any other Android browser and the request's `Referer` is `android-app://…` (Chrome names the app that opened a Custom Tab there; only the page load carries it, since the journey's own calls send no referrer) |
/// | `phone` | has `Mobile`, `Android` or `iPhone` (any other phone or tablet browser) |
/// | `desktop` | anything else, an empty User-Agent included |
///
/// The order matters: the webview marks are looked for before the generic phone marks.
public enum DeviceClass: String, Sendable, CaseIterable, Codable {
    case desktop
    case phone
    case iosWebview = "ios_webview"
    case androidWebview = "android_webview"
    case customTab = "custom_tab"

    public init(userAgent: String?, referer: String? = nil) {
        let agent = userAgent ?? ""
        let isApple = agent.contains("iPhone") || agent.contains("iPad") || agent.contains("iPod")
        let isAndroid = agent.contains("Android")
        let inAppMarks = ["FBAN", "FBAV", "Instagram", "Line/", "GSA/"]
        if isAndroid && (agent.contains("; wv)") || agent.contains("Version/4.0 Chrome/")) {
            self = .androidWebview
        } else if isApple && agent.contains("AppleWebKit") && (!agent.contains("Safari/") || inAppMarks.contains(where: agent.contains)) {
            self = .iosWebview
        } else if isAndroid && (referer ?? "").hasPrefix("android-app://") {
            self = .customTab
        } else if isAndroid || isApple || agent.contains("Mobile") {
            self = .phone
        } else {
            self = .desktop
        }
    }
}
