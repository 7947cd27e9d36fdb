#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, and its encoding.h then includes ICU's headers, which clash
// with the ICU inside Foundation. Only the layout of xmlCharEncodingHandler, a struct Hosted never
// allocates or reads (it holds pointers to it at most), depends on this.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

// libxml2 (Debian libxml2-dev) reads the XML Hosted takes in: DigiLocker's documents, through
// HostedXML's reader. Its errors are the reader's return value; this handler keeps libxml2 from
// printing them (a document's text must never reach a log).
static inline void hosted_xml_ignore_error(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}
