// Continuing on another device, the phone's side: the link's secret (fragment.js took it off the
// address) opens the continuation for this device alone, which then picks, among three, the
// number the first device shows. The right one signs this device in; a wrong one, or a link
// already used, replaced or expired, leaves the normal sign-in.
import { call, verificationId } from "./api.js";
import { focusHeading, h, setMessage } from "./dom.js";
import { messageFor } from "./messages.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

/** A link's lifetime: its choices are no use after it. */
const CHOICES_KEPT_MS = 600 * 1000;

let hooks = { signedIn: async () => {}, refused: async () => {} };
let unopened = ""; // a secret whose opening the network lost: "Try again" sends it once more

/** The choices (never the secret: the claim that goes with them is an HttpOnly cookie) stay in
 *  this tab's storage, so that a reload on the choosing screen shows them again. */
function storageKey() {
  return `hosted.continuation.${verificationId()}`;
}

function validChoices(options) {
  return Array.isArray(options) && options.length > 1 && options.every((option) => typeof option === "string" && /^[0-9]{2}$/.test(option));
}

function keep(options) {
  try {
    sessionStorage.setItem(storageKey(), JSON.stringify({ options, at: Date.now() }));
  } catch { /* no storage: a reload then needs the link again */ }
}

function forget() {
  try {
    sessionStorage.removeItem(storageKey());
  } catch { /* nothing kept */ }
}

function kept() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(storageKey()) || "null");
    if (saved && validChoices(saved.options) && Date.now() - saved.at < CHOICES_KEPT_MS) return saved.options;
  } catch { /* unreadable: forgotten below */ }
  forget();
  return null;
}

function elements() {
  return {
    screen: document.getElementById("match"),
    options: document.getElementById("match-options"),
    error: document.getElementById("match-error"),
    retry: document.getElementById("match-retry"),
  };
}

async function pick(number, buttons) {
  const { error } = elements();
  setMessage(error, "");
  for (const button of buttons) button.disabled = true;
  const result = await call("POST", "/continuations/match", { number });
  if (result.status === 200) {
    forget();
    return hooks.signedIn();
  }
  // No answer, or not a decided one: the pick may be tried again (a pick the server did take
  // answers continuation_invalid the second time).
  if (result.status === 0 || result.status >= 500 || result.code === "rate_limited") {
    for (const button of buttons) button.disabled = false;
    return setMessage(error, messageFor(result, "match"));
  }
  forget();
  return hooks.refused(messageFor(result, "match"));
}

/** The choosing screen: the question and one large button per number. */
function offer(options) {
  const { screen, options: group, error, retry } = elements();
  setMessage(error, "");
  retry.hidden = true;
  const buttons = options.map((number) => h("button", { type: "button", dataset: { testid: "match-option" } }, number));
  for (const button of buttons) button.addEventListener("click", () => pick(button.textContent, buttons));
  group.replaceChildren(...buttons);
  show("match");
  focusHeading(screen);
}

/** Exchanges the secret for this device's choices (and the claim cookie). */
export function openContinuation(secret) {
  return call("POST", "/continuations/open", { secret });
}

/** Shows the answer of openContinuation(secret): the choices, or why not (with "Try again"
 *  when the network failed, else the sign-in). */
export async function showOpened(result, secret) {
  if (result.status === 200 && validChoices(result.body.options)) {
    unopened = "";
    keep(result.body.options);
    return offer(result.body.options);
  }
  if (result.status === 0) {
    unopened = secret;
    const { screen, options, error, retry } = elements();
    options.replaceChildren();
    setMessage(error, messageFor(result, "open"));
    retry.hidden = false;
    show("match");
    return focusHeading(screen);
  }
  unopened = "";
  forget();
  return hooks.refused(messageFor(result, "open"));
}

/** After a reload on the choosing screen: true when the choices were shown again. */
export function resumeMatch() {
  const options = kept();
  if (!options) return false;
  offer(options);
  return true;
}

/** `signedIn()` runs after the right pick; `refused(message)` when the link cannot be used. */
export function setUpMatch(signedIn, refused) {
  hooks = { signedIn, refused };
  const { retry } = elements();
  retry.addEventListener("click", async () => {
    if (!unopened) return;
    retry.disabled = true;
    const result = await openContinuation(unopened);
    retry.disabled = false;
    await showOpened(result, unopened);
  });
}
