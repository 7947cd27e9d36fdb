// The decision panel: approve, or reject with a reason code, with an optional internal note, and
// "Ask for a retake" (resubmit.js). Each is shown only when the server says this operator can
// (`can_decide`, `can_resubmit`); otherwise the panel says why not.
import { call, signedOut, verificationPath } from "./api.js";
import { errorLine, h, own, setFieldError, setMessage } from "./dom.js";
import { formatTime, reasonName, statusName } from "./format.js";
import { messageFor } from "./messages.js";
import { NOTE_MAX } from "./notes.js";
import { resubmitSection } from "./resubmit.js";
import { strings } from "./strings.js";

/** What the server answered a decision with, as words (approved, rejected, approval_recorded). */
export function outcomeLine(outcome) {
  const words = own(strings.decision.outcomes, outcome) || strings.decision.outcomes.other;
  return h("p", { id: "decision-outcome", className: `outcome outcome-${outcome}`, role: "status", tabIndex: -1,
    dataset: { testid: "decision-outcome", outcome } }, words);
}

function approvedByMe(verification, me) {
  const approvals = Array.isArray(verification.approvals) ? verification.approvals : [];
  return approvals.some((approval) => approval && approval.id === me.id);
}

/** Why this operator cannot decide now. */
function unavailableText(verification, me) {
  const words = strings.decision.unavailable;
  const status = verification.status;
  if (status === "approved" || status === "rejected") {
    const when = verification.decided_at ? formatTime(verification.decided_at) : "";
    const reason = status === "rejected" && verification.decision_reason ? reasonName(verification.decision_reason) : "";
    return words.decided(statusName(status), when, reason);
  }
  if (status === "submitted") return approvedByMe(verification, me) ? words.waitingForSecond : words.cannot;
  if (status === "created" || status === "in_progress") return words.notSubmitted;
  if (status === "resubmission_requested") return words.resubmission;
  return words.closed(statusName(status));
}

function choice(value, testid, text) {
  const id = `decision-${value === "approved" ? "approve" : "reject"}`;
  return h("label", { className: "choice", htmlFor: id },
    h("input", { type: "radio", name: "decision", id, value, dataset: { testid } }),
    h("span", {}, text));
}

function approvalsHint(verification) {
  const required = Number(verification.approvals_required) || 1;
  if (required < 2) return null;
  const count = Array.isArray(verification.approvals) ? verification.approvals.length : 0;
  return h("p", { className: "note" }, strings.decision.fourEyes(count, required));
}

function decisionForm(detail, reload) {
  const { verification } = detail;
  const reasons = Array.isArray(detail.reasons) ? detail.reasons.map(String) : [];
  const reasonError = errorLine({ id: "decision-reason-error" });
  const reason = h("select", { id: "decision-reason", name: "reason", dataset: { testid: "decision-reason" },
    "aria-describedby": "decision-reason-error" },
    h("option", { value: "" }, strings.decision.chooseReason),
    reasons.map((code) => h("option", { value: code }, reasonName(code))));
  const note = h("textarea", { id: "decision-note", name: "note", rows: 3, maxLength: NOTE_MAX,
    dataset: { testid: "decision-note" }, "aria-describedby": "decision-note-hint" });
  const error = errorLine({ id: "decision-error", dataset: { testid: "decision-error" } });
  const submit = h("button", { type: "submit", dataset: { testid: "decision-submit" } }, strings.decision.submit);
  const form = h("form", { className: "decision-form", noValidate: true },
    h("fieldset", {},
      h("legend", {}, strings.decision.legend),
      h("div", { className: "choices" },
        choice("approved", "decision-approve", strings.decision.approve),
        choice("rejected", "decision-reject", strings.decision.reject))),
    h("label", { htmlFor: "decision-reason" }, strings.decision.reasonLabel),
    reason,
    reasonError,
    h("label", { htmlFor: "decision-note" }, strings.decision.noteLabel),
    note,
    h("p", { id: "decision-note-hint", className: "hint" }, strings.notes.hint),
    error,
    submit);

  const chosen = () => form.querySelector("input[name=decision]:checked")?.value || "";
  // A reason belongs to a rejection only: set aside (disabled) while "approve" is chosen.
  form.addEventListener("change", (event) => {
    if (event.target.name !== "decision") return;
    const rejecting = chosen() === "rejected";
    reason.disabled = chosen() === "approved";
    reason.required = rejecting;
    setFieldError(reason, reasonError, "");
    setMessage(error, "");
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setMessage(error, "");
    setFieldError(reason, reasonError, "");
    const decision = chosen();
    if (!decision) {
      setMessage(error, strings.decision.chooseDecision);
      form.querySelector("input[name=decision]").focus();
      return;
    }
    if (decision === "rejected" && !reason.value) {
      setFieldError(reason, reasonError, strings.decision.reasonRequired);
      setMessage(error, strings.decision.reasonRequired);
      reason.focus();
      return;
    }
    const body = { decision };
    if (decision === "rejected") body.reason = reason.value;
    if (note.value.trim()) body.note = note.value.trim();
    submit.disabled = true;
    const result = await call("POST", verificationPath(verification.id, "/decision"), body);
    submit.disabled = false;
    if (signedOut(result)) return;
    if (result.status === 200 && typeof result.body.outcome === "string") {
      await reload({ outcome: result.body.outcome });
      return;
    }
    for (const fieldError of result.errors) {
      if (fieldError.field === "reason") setFieldError(reason, reasonError, strings.decision.reasonRequired);
    }
    setMessage(error, messageFor(result, "decision"));
  });
  return form;
}

/** The decision section: the last decision's outcome (after one), then the form or why not. */
export function decisionSection(detail, me, reload, outcome) {
  const { verification } = detail;
  const steps = Array.isArray(detail.steps) ? detail.steps.filter((step) => step && typeof step === "object") : [];
  return h("section", { className: "panel decision", "aria-labelledby": "decision-title" },
    h("h3", { id: "decision-title" }, strings.decision.title),
    outcome ? outcomeLine(outcome) : null,
    detail.can_decide === true
      ? [approvalsHint(verification), decisionForm(detail, reload)]
      : h("p", { className: "unavailable", dataset: { testid: "decision-unavailable" } }, unavailableText(verification, me)),
    resubmitSection(detail, steps, reload));
}
