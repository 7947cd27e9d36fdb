// "Continue in the {account} app" on the computer's code panel, offered when the customer's
// backend hears `verification.continuation_requested` (the create answer's `app`). Pressing it
// has the server record that event; the customer's backend then pushes to its own app, which
// opens a handoff on the phone that asks for this panel's number. So the code and the number
// stay on screen: the phone must still match the number.
import { call } from "./api.js";
import { h, setMessage } from "./dom.js";
import { strings } from "./strings.js";

/** At most this much of the account's name goes on the button. */
const NAME_LENGTH = 60;

/** The button and the line under it, for the panel: {button, line, name}. */
export function buildAppOffer() {
  return {
    button: h("button", { type: "button", className: "secondary", hidden: true, dataset: { testid: "continuation-app" } }),
    line: h("p", { className: "note", role: "status", hidden: true, dataset: { testid: "continuation-app-sent" } }),
    name: "",
  };
}

/** Offers the app for a new link when the create answer named one (`{"name"}`), else nothing. */
export function showAppOffer(offer, app) {
  const name = app && typeof app === "object" && typeof app.name === "string" ? app.name.trim().slice(0, NAME_LENGTH) : "";
  offer.name = name;
  offer.button.textContent = name ? strings.continuation.app(name) : "";
  offer.button.hidden = !name;
  offer.button.disabled = false;
  setMessage(offer.line, "");
}

/** The link can no longer go to the app (opened on a phone, burnt, replaced). */
export function hideAppOffer(offer) {
  offer.button.hidden = true;
}

/** Asks for the push; on 202 the button goes and the line says what to do on the phone.
 *  Resolves to the call's result (the panel handles every other answer). */
export async function requestApp(offer, signal) {
  offer.button.disabled = true;
  setMessage(offer.line, "");
  const result = await call("POST", "/continuations/app", {}, signal);
  offer.button.disabled = false;
  if (result.status === 202) {
    offer.button.hidden = true;
    setMessage(offer.line, strings.continuation.appSent(offer.name));
  }
  return result;
}
