import HostedXML
import Testing

/// The libxml2 reader on its own: what it gives, and what it refuses.
@Suite struct XMLAttributeReaderTests {
    private func read(_ xml: String) -> [String: [String: String]]? { XMLAttributeReader.firstAttributes(Array(xml.utf8)) }

    @Test func firstElementOfEachNameWithItsAttributes() throws {
        let elements = try #require(read(#"<a x="1"><b y="2" z=""/><b y="3"/><c/></a>"#))
        #expect(elements == ["a": ["x": "1"], "b": ["y": "2", "z": ""], "c": [:]])
    }

    @Test func localNamesWhetherOrNotPrefixed() throws {
        let elements = try #require(read(#"<d:Certificate xmlns:d="urn:digilocker" number="AB12"><d:Person name="Asha"/></d:Certificate>"#))
        // The namespace declaration is not an attribute.
        #expect(elements == ["Certificate": ["number": "AB12"], "Person": ["name": "Asha"]])
    }

    @Test func referencesInValuesAreResolved() throws {
        let elements = try #require(read(#"<p name="Asha &amp; Ravi &#x906;&#2358;&lt;&quot;"/>"#))
        #expect(elements["p"]?["name"] == "Asha & Ravi आश<\"")
    }

    @Test func theDeclarationIsDroppedAndTheTextReadAsUTF8() throws {
        // UTF-16 named, UTF-8 given: read as UTF-8, as every byte before libxml2 was checked.
        let elements = try #require(read("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<p name=\"आशा\"/>"))
        #expect(elements["p"]?["name"] == "आशा")
        #expect(read("\u{FEFF}<?xml version=\"1.0\"?><p name=\"a\"/>")?["p"]?["name"] == "a")
    }

    @Test(arguments: [
        "", "   ", "not xml at all", "<a>", "<a></b>", #"<a x="1" x="2"/>"#, "<a/><b/>",
        "<a>&undefined;</a>", #"<a x="&undefined;"/>"#,
        // Refused before libxml2: a DOCTYPE (entities, XXE), a processing instruction, NUL, bad UTF-8.
        "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>",
        "<?xml version=\"1.0\"?><!DOCTYPE a SYSTEM \"file:///etc/passwd\"><a/>",
        "<a><?pi data?></a>", "<a>\u{0}</a>", "<?xml version=\"1.0\"",
    ])
    func malformedOrRefused(_ xml: String) {
        #expect(read(xml) == nil)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(XMLAttributeReader.firstAttributes([0x3C, 0x61, 0x20, 0x62, 0x3D, 0x22, 0xFF, 0x22, 0x2F, 0x3E]) == nil)
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        // libxml2 stops at 256 levels without XML_PARSE_HUGE (which is never set).
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(read(deep) == nil)
        let fine = String(repeating: "<a>", count: 200) + "<b n=\"1\"/>" + String(repeating: "</a>", count: 200)
        #expect(read(fine)?["b"] == ["n": "1"])
    }
}
