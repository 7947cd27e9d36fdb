// The verification's evidence bundle (docs/evidence.md): a ZIP of the signed manifest, the photos
// and documents still stored, and the event log. The server records each download, with the
// operator as actor (`verification.evidence_exported`); the browser saves the file.
import { h } from "./dom.js";
import { strings } from "./strings.js";

/** The download link, styled as a button, with a line saying what the file holds. */
export function evidenceSection(id) {
  const path = `/console/api/verifications/${encodeURIComponent(id)}/evidence`;
  return h("section", { className: "panel", "aria-labelledby": "evidence-title" },
    h("h3", { id: "evidence-title" }, strings.detail.evidence.title),
    h("p", { className: "muted", id: "evidence-hint" }, strings.detail.evidence.hint),
    h("a", { className: "button-link", href: path, download: `evidence-${id}.zip`, "aria-describedby": "evidence-hint",
      dataset: { testid: "evidence-download" } }, strings.detail.evidence.download));
}
