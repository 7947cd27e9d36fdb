// The end of the journey: submitted, or closed (approved, rejected, canceled, expired).
import { show } from "./screens.js";
import { strings } from "./strings.js";

export function renderDone(status) {
  const submitted = status === "submitted";
  const title = document.getElementById("done-title");
  title.textContent = submitted ? strings.done.submittedTitle : strings.done.closedTitle;
  const element = document.getElementById("journey-status");
  element.dataset.status = status;
  element.textContent = strings.status[status] || status;
  const note = document.getElementById("done-note");
  note.textContent = strings.done.closeWindow;
  note.hidden = !submitted;
  show(submitted ? "submitted" : "closed");
  title.focus();
}
