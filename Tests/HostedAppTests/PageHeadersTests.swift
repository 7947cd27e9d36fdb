@testable import HostedApp
import Testing

@Suite struct PageHeadersTests {
    /// The page headers go on HTML whatever the letter case or parameters of its type, and only
    /// on HTML (assets get them by path).
    @Test func htmlIsKnownByItsTypeInAnyCase() {
        for type in ["text/html", "text/html; charset=utf-8", "TEXT/HTML", "Text/Html;charset=UTF-8"] {
            #expect(PageHeaders.isHTML(type), "\(type)")
        }
        for type in [nil, "", "text/htm", "text/plain", "application/json", "application/problem+json", "text\u{0F}html", " text/html"] {
            #expect(!PageHeaders.isHTML(type), "\(String(describing: type))")
        }
    }
}
