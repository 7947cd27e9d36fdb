// Internal notes on a verification (only operators see them) and the form that adds one.
import { call, signedOut, verificationPath } from "./api.js";
import { announce, errorLine, h, setFieldError } from "./dom.js";
import { formatTime, userText } from "./format.js";
import { messageFor } from "./messages.js";
import { strings } from "./strings.js";

/** The server's limit for a note (and the decision's note). */
export const NOTE_MAX = 2000;

function noteItem(note) {
  return h("li", { className: "note-item" },
    h("p", { className: "note-meta muted" },
      String(note.operator_email || note.operator_id || ""), " · ",
      note.created_at ? h("time", { dateTime: note.created_at }, formatTime(note.created_at)) : null),
    h("p", { className: "note-body", dataset: { testid: "note-body" } }, userText(note.body)));
}

function addForm(id, reload) {
  const error = errorLine({ id: "note-input-error" });
  const input = h("textarea", {
    id: "note-input", name: "note", rows: 3, maxLength: NOTE_MAX, dataset: { testid: "note-input" },
    "aria-describedby": "note-input-hint note-input-error",
  });
  const button = h("button", { type: "submit", className: "secondary", dataset: { testid: "note-add" } }, strings.notes.add);
  const form = h("form", { className: "note-form", noValidate: true },
    h("label", { htmlFor: "note-input" }, strings.notes.label),
    input,
    h("p", { id: "note-input-hint", className: "hint" }, strings.notes.hint),
    error,
    button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const note = input.value.trim();
    setFieldError(input, error, "");
    if (!note) {
      setFieldError(input, error, strings.notes.empty);
      input.focus();
      return;
    }
    button.disabled = true;
    const result = await call("POST", verificationPath(id, "/notes"), { note });
    button.disabled = false;
    if (signedOut(result)) return;
    if (result.status === 201 || result.status === 200) {
      await reload({ focus: "note-input" });
      announce(strings.notes.added);
    }
    else setFieldError(input, error, messageFor(result, "note"));
  });
  return form;
}

/** The notes section of verification `id`; `reload` shows the detail again after adding one. */
export function notesSection(id, notes, reload) {
  return h("section", { className: "panel", "aria-labelledby": "notes-title" },
    h("h3", { id: "notes-title" }, strings.notes.title),
    notes.length
      ? h("ul", { className: "notes" }, notes.map(noteItem))
      : h("p", { className: "muted" }, strings.notes.none),
    addForm(id, reload));
}
