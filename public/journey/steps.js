// The steps screen: progress, then the first step not yet completed (one step per screen), or
// the review screen once every step is done; elsewhere.js adds continuing on another device.
import { renderPhotos } from "./capture.js";
import { renderDigilocker } from "./digilocker.js";
import { errorLine, focusHeading, h, heading, setMessage } from "./dom.js";
import { offerContinuation } from "./elsewhere.js";
import { isStale, messageFor } from "./messages.js";
import { PHOTO_STEPS } from "./photoplan.js";
import { renderProfile } from "./profile.js";
import { journeySteps } from "./resubmission.js";
import { renderReview } from "./review.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";
import { reportSignal } from "./signals.js";

const renderers = { profile: renderProfile, digilocker: renderDigilocker };
for (const type of PHOTO_STEPS) renderers[type] = renderPhotos;

function stepName(step) {
  return strings.stepNames[step.type] || step.id;
}

function progressItem(step, current) {
  const status = step.status === "completed" ? "completed" : step === current ? "current" : "pending";
  return h("li", { className: status, "aria-current": status === "current" ? "step" : null },
    h("span", { className: "visually-hidden" }, `${stepName(step)}: ${strings.stepStates[status]}`));
}

function renderProgress(steps, current) {
  const total = steps.length;
  document.getElementById("step-progress").textContent = current
    ? strings.progress(steps.indexOf(current) + 1, total)
    : strings.progressDone(total);
  document.getElementById("step-list").replaceChildren(...steps.map((step) => progressItem(step, current)));
}

function context(state, step, actions, setback) {
  return {
    state,
    step,
    actions,
    /** Why the user came back from DigiLocker without the documents, if they did. */
    setback,
    /** Shows a new state; signs in again without a session; reloads a state that moved on
     *  (noting why). False for any other answer, whose words are messageFor's. */
    settle(result) {
      if (result.status === 200 && Array.isArray(result.body.steps)) {
        actions.render(result.body);
        return true;
      }
      if (result.code === "signin_required") {
        actions.reload();
        return true;
      }
      if (isStale(result)) {
        actions.reload(messageFor(result));
        return true;
      }
      return false;
    },
  };
}

function stepScreen(ctx) {
  const { step } = ctx;
  const render = renderers[step.type];
  const titleId = `step-${step.id}-title`;
  return h("section", { id: `step-${step.id}`, dataset: { testid: `step-${step.id}` }, "aria-labelledby": titleId },
    heading(stepName(step), titleId), render ? render(ctx) : h("p", {}, strings.unknownStep));
}

/** Shows an open verification; `notice` explains, above the step, why it was reloaded;
 *  `setback` is DigiLocker's (denied, failed, expired, missing), shown in its own step. */
export function renderJourney(state, actions, notice, setback) {
  const steps = journeySteps(state);
  const current = steps.find((step) => step.status !== "completed");
  const ctx = context(state, current, actions, current && current.type === "digilocker" ? setback : undefined);
  renderProgress(steps, current);
  const area = document.getElementById("step-area");
  const noticeLine = errorLine();
  setMessage(noticeLine, notice);
  const screen = current ? stepScreen(ctx) : renderReview(ctx);
  area.replaceChildren(noticeLine, screen);
  document.getElementById("journey-status").dataset.status = state.status;
  show("step");
  focusHeading(area);
  offerContinuation(screen, state, actions, current);
  if (current) reportSignal("step_viewed", current.id);
  const elsewhere = screen.querySelector('[data-testid="continue-elsewhere"]');
  if (elsewhere) elsewhere.addEventListener("click", () => reportSignal("continued_elsewhere"));
}
