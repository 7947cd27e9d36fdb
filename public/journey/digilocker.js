// The `digilocker` step: off to DigiLocker's consent screen; the server brings the user back to
// the journey, which then shows the step completed (or this step again, to retry).
import { call } from "./api.js";
import { announce, errorLine, h, setMessage } from "./dom.js";
import { messageFor, setbackMessage } from "./messages.js";
import { goTo } from "./navigate.js";
import { askedLanguage, strings } from "./strings.js";

async function begin(ctx, button, error) {
  button.disabled = true;
  setMessage(error, "");
  announce(strings.digilocker.opening);
  const result = await call("POST", "/digilocker/start", { step: ctx.step.id, lang: askedLanguage });
  if (result.status === 200 && goTo(result.body.authorize_url)) return;
  button.disabled = false;
  // Completed in another tab, or the verification closed meanwhile: settle shows where things stand.
  if (ctx.settle(result)) return;
  setMessage(error, messageFor(result, "digilocker"));
  button.textContent = strings.retry;
}

function documentList(documents) {
  if (!Array.isArray(documents) || !documents.length) return [];
  const names = strings.digilocker.documents;
  return [h("p", {}, strings.digilocker.documentsIntro), h("ul", {}, documents.map((name) => h("li", {}, names[name] || name)))];
}

export function renderDigilocker(ctx) {
  const error = errorLine();
  error.dataset.testid = "digilocker-error";
  // Back from DigiLocker without the documents: say why, and offer the way out again.
  setMessage(error, ctx.setback ? setbackMessage(ctx.setback) : "");
  const label = ctx.setback ? strings.digilocker.retry : strings.digilocker.start;
  const button = h("button", { type: "button", dataset: { testid: "digilocker-start" } }, label);
  button.addEventListener("click", () => begin(ctx, button, error));
  return h("div", {}, h("p", {}, strings.digilocker.intro), documentList(ctx.step.documents), error, button);
}
