// The end of the journey: submitted, or closed (approved, rejected, canceled, expired; `closed`
// when told without a session, which never learns the decision). A device
// that continued a journey begun on another one sends the user back there.
import { setMessage } from "./dom.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

export function renderDone(status, continued = false) {
  const submitted = status === "submitted";
  const expired = status === "expired";
  const title = document.getElementById("done-title");
  title.textContent = submitted ? strings.done.submittedTitle : expired ? strings.done.expiredTitle : strings.done.closedTitle;
  const element = document.getElementById("journey-status");
  element.dataset.status = status;
  element.textContent = strings.status[status] || status;
  setMessage(document.getElementById("done-note"),
             submitted ? (continued ? strings.done.continued : strings.done.closeWindow) : expired ? strings.done.expiredNote : "");
  show(submitted ? "submitted" : "closed");
  title.focus();
}
