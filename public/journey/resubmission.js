// The resubmission screen: a reviewer sent the verification back for some steps. It says why
// (the reason code in the user's language, and the reviewer's own words as plain text), lists
// what to redo, and starts those steps; the journey then shows only them and submits as before.
import { focusHeading, h, heading } from "./dom.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

/** The reopened steps of the state, in the workflow's order. */
export function reopenedSteps(state) {
  const named = state.resubmission && Array.isArray(state.resubmission.steps) ? state.resubmission.steps : [];
  return state.steps.filter((step) => named.includes(step.id));
}

/** The steps the user works through: all of them, or while a reviewer's request is open only
 *  the ones sent back. */
export function journeySteps(state) {
  return state.resubmission ? reopenedSteps(state) : state.steps;
}

function reasonText(reason) {
  const reasons = strings.resubmission.reasons;
  return Object.prototype.hasOwnProperty.call(reasons, reason) ? reasons[reason] : reasons.other;
}

function reviewerMessage(message) {
  if (typeof message !== "string" || !message) return null;
  return h("figure", { className: "reviewer-message" },
    h("figcaption", {}, strings.resubmission.messageLabel),
    h("blockquote", { dir: "auto", dataset: { testid: "resubmission-message" } }, message));
}

/** Shows the screen; `onStart` opens the first step to redo. */
export function renderResubmission(state, onStart) {
  const section = document.getElementById("resubmission");
  const button = h("button", { type: "button", dataset: { testid: "resubmission-start" } }, strings.resubmission.start);
  button.addEventListener("click", onStart);
  const steps = reopenedSteps(state).map((step) => h("li", {}, strings.stepNames[step.type] || step.id));
  section.replaceChildren(
    heading(strings.resubmission.title, "resubmission-title"),
    h("p", {}, strings.resubmission.intro),
    h("p", { className: "note", dataset: { testid: "resubmission-reason", reason: state.resubmission.reason || "other" } },
      reasonText(state.resubmission.reason)),
    reviewerMessage(state.resubmission.message),
    h("h3", { id: "resubmission-steps" }, strings.resubmission.stepsLabel),
    h("ul", { className: "how", "aria-labelledby": "resubmission-steps" }, steps),
    button);
  document.getElementById("journey-status").dataset.status = state.status;
  show("resubmission");
  focusHeading(section);
}
