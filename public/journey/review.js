// The review screen once every step is completed: a summary and the submit button.
import { call } from "./api.js";
import { errorLine, h, heading, setMessage } from "./dom.js";
import { messageFor } from "./messages.js";
import { goTo } from "./navigate.js";
import { journeySteps } from "./resubmission.js";
import { strings } from "./strings.js";

async function submit(ctx, button, error) {
  button.disabled = true;
  button.textContent = strings.review.submitting;
  setMessage(error, "");
  const result = await call("POST", "/submit");
  if (result.status === 200) {
    // The closing screen first: if an app link takes the user away, this page is left tidy.
    // A phone that continued a journey begun elsewhere stays put (the first device moves on).
    const continued = ctx.state.continued === true;
    ctx.actions.render({ status: result.body.status || "submitted", continued });
    if (!continued) goTo(result.body.redirect_url);
    return;
  }
  button.disabled = false;
  button.textContent = strings.review.submit;
  if (!ctx.settle(result)) setMessage(error, messageFor(result));
}

export function renderReview(ctx) {
  const error = errorLine();
  const button = h("button", { type: "button", dataset: { testid: "submit" } }, strings.review.submit);
  button.addEventListener("click", () => submit(ctx, button, error));
  const summary = h("ul", { className: "summary" },
    journeySteps(ctx.state).map((step) => h("li", {}, strings.stepNames[step.type] || step.id)));
  return h("section", { id: "review", dataset: { testid: "review" }, "aria-labelledby": "review-title" },
    heading(strings.review.title, "review-title"),
    h("p", {}, strings.review.intro), summary, error, button);
}
