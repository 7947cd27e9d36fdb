// "Ask for a retake": instead of a rejection that makes the user start over, send a submitted
// verification back for some steps, with a reason, an optional message the user sees as written,
// and optionally the journey link by SMS. Shown only when the server says so (`can_resubmit`:
// submitted, and a role that decides).
import { call, signedOut, verificationPath } from "./api.js";
import { errorLine, h, setFieldError, setMessage } from "./dom.js";
import { label, stepName } from "./format.js";
import { messageFor } from "./messages.js";
import { strings } from "./strings.js";

/** The server's limit for the message to the user. */
export const MESSAGE_MAX = 500;

function stepChoices(steps) {
  return steps.map((step) => {
    const id = `resubmit-step-${String(step.id).replace(/[^A-Za-z0-9_-]/g, "_")}`;
    return h("label", { className: "check", htmlFor: id },
      h("input", { type: "checkbox", id, name: "resubmit-step", value: String(step.id), dataset: { testid: "resubmit-step" } }),
      h("span", {}, stepName(step)));
  });
}

function reasonSelect(reasons) {
  return h("select", { id: "resubmit-reason", name: "reason", dataset: { testid: "resubmit-reason" },
    "aria-describedby": "resubmit-reason-error" },
  h("option", { value: "" }, strings.resubmit.chooseReason),
  reasons.map((code) => h("option", { value: code }, label(strings.retakeReasons, code))));
}

function notifyChoice(verification) {
  if (!verification.mobile_last4) return null;
  return h("label", { className: "check notify", htmlFor: "resubmit-notify" },
    h("input", { type: "checkbox", id: "resubmit-notify", name: "notify", dataset: { testid: "resubmit-notify" } }),
    h("span", {}, strings.resubmit.notify(String(verification.mobile_last4))));
}

function limitHint(verification) {
  const max = Number(verification.max_resubmissions);
  if (!Number.isFinite(max)) return null;
  return h("p", { className: "hint", dataset: { testid: "resubmit-limit" } },
    strings.resubmit.limit(Number(verification.resubmissions) || 0, max));
}

/** Shows `text` on `field` (its control marked invalid, when it has one); "" clears it. */
function mark(field, text) {
  if (field.input) setFieldError(field.input, field.error, text);
  else setMessage(field.error, text);
}

/** Shows the server's field errors on their fields; the rest goes to the form's error line. */
function showFieldErrors(result, fields) {
  for (const fieldError of result.errors) {
    const field = fields[String(fieldError.field || "").replace(/\[\d+\]$/, "")];
    if (field) mark(field, field.words);
  }
}

function retakeForm(detail, steps, reload) {
  const { verification } = detail;
  const words = strings.resubmit;
  const reasons = Array.isArray(detail.resubmission_reasons) ? detail.resubmission_reasons.map(String) : [];
  const stepsError = errorLine({ id: "resubmit-steps-error" });
  const reasonError = errorLine({ id: "resubmit-reason-error" });
  const messageError = errorLine({ id: "resubmit-message-error" });
  const error = errorLine({ id: "resubmit-error", dataset: { testid: "resubmit-error" } });
  const choices = h("fieldset", { className: "steps-choice", "aria-describedby": "resubmit-steps-error" },
    h("legend", {}, words.stepsLegend), h("div", { className: "checks" }, stepChoices(steps)), stepsError);
  const reason = reasonSelect(reasons);
  const message = h("textarea", { id: "resubmit-message", name: "message", rows: 3, maxLength: MESSAGE_MAX,
    dataset: { testid: "resubmit-message" }, "aria-describedby": "resubmit-message-hint resubmit-message-error" });
  const submit = h("button", { type: "submit", className: "secondary", dataset: { testid: "decision-resubmit" } }, words.submit);
  const form = h("form", { className: "resubmit-form", noValidate: true },
    choices,
    h("label", { htmlFor: "resubmit-reason" }, words.reasonLabel), reason, reasonError,
    h("label", { htmlFor: "resubmit-message" }, words.messageLabel), message,
    h("p", { id: "resubmit-message-hint", className: "hint" }, words.messageHint), messageError,
    notifyChoice(verification),
    limitHint(verification),
    error,
    submit);
  const fields = {
    // A group has no aria-invalid: its error line (described by the fieldset) says it.
    steps: { input: null, error: stepsError, words: words.stepsRequired },
    reason: { input: reason, error: reasonError, words: words.reasonRequired },
    message: { input: message, error: messageError, words: words.messageTooLong },
  };

  const clear = () => {
    for (const field of Object.values(fields)) mark(field, "");
    setMessage(error, "");
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const chosen = [...form.querySelectorAll("input[name=resubmit-step]:checked")].map((input) => input.value);
    const text = message.value.trim();
    const missing = [];
    if (!chosen.length) missing.push("steps");
    if (!reason.value) missing.push("reason");
    if (text.length > MESSAGE_MAX) missing.push("message");
    if (missing.length) {
      for (const name of missing) mark(fields[name], fields[name].words);
      setMessage(error, fields[missing[0]].words);
      (missing[0] === "steps" ? form.querySelector("input[name=resubmit-step]") : fields[missing[0]].input).focus();
      return;
    }
    const body = { steps: chosen, reason: reason.value, notify: form.querySelector("#resubmit-notify")?.checked === true };
    if (text) body.message = text;
    submit.disabled = true;
    const result = await call("POST", verificationPath(verification.id, "/resubmission"), body);
    submit.disabled = false;
    if (signedOut(result)) return;
    if (result.status === 200) {
      await reload({ outcome: "resubmission_requested" });
      return;
    }
    showFieldErrors(result, fields);
    setMessage(error, messageFor(result, "resubmit"));
  });
  return form;
}

/** The "Ask for a retake" part of the decision panel, or null when the server does not offer it. */
export function resubmitSection(detail, steps, reload) {
  if (detail.can_resubmit !== true) return null;
  return h("section", { className: "resubmit", "aria-labelledby": "resubmit-title" },
    h("h4", { id: "resubmit-title" }, strings.resubmit.title),
    h("p", { className: "hint" }, strings.resubmit.intro),
    retakeForm(detail, steps, reload));
}
