// Continuing on another device, the phone's side. The link's secret (fragment.js took it off the
// address), or a handoff the customer's app opened, gives this device alone the question: pick
// among three (`choose`), or type (`type`), the number the first device shows, under a line
// saying where and when the request came from, with "This wasn't me" beside it. The right
// number signs this device in; a wrong one, or a link already used, replaced or expired, leaves
// the normal sign-in; a report stops the request, and then this page sends nothing more.
import { call, verificationId } from "./api.js";
import { focusHeading, h, setMessage } from "./dom.js";
import { cleanContext, contextLine } from "./matchcontext.js";
import { messageFor } from "./messages.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

/** A link's lifetime: its question is no use after it. */
const PROMPT_KEPT_MS = 600 * 1000;
const TWO_DIGITS = /^[0-9]{2}$/;
/** Devanagari digits (a Hindi keyboard may type them) read as the digits they are. */
const DEVANAGARI_ZERO = 0x0966;

let hooks = { signedIn: async () => {}, refused: async () => {} };
let unopened = ""; // a secret whose opening the network lost: "Try again" sends it once more
let sending = false; // a pick or a report is on its way: nothing else is sent meanwhile

/** The question (never the secret: the claim that goes with it is an HttpOnly cookie) stays in
 *  this tab's storage, so that a reload on the matching screen shows it again. */
function storageKey() {
  return `hosted.continuation.${verificationId()}`;
}

function validChoices(options) {
  return Array.isArray(options) && options.length > 1 && options.every((option) => typeof option === "string" && TWO_DIGITS.test(option));
}

/** The server's answer (or the kept copy) as {matching, options, context, app}; null when
 *  unusable. An answer without `matching` is the older `{options}`: a choice. `app`: opened by the
 *  customer's app (a handoff), not by scanning the code. */
function promptOf(body, app = body && body.app === true) {
  if (!body || typeof body !== "object") return null;
  const context = cleanContext(body.context);
  if (body.matching === "type") return { matching: "type", context, app };
  if ((body.matching === undefined || body.matching === "choose") && validChoices(body.options)) {
    return { matching: "choose", options: body.options, context, app };
  }
  return null;
}

function keep(prompt) {
  try {
    sessionStorage.setItem(storageKey(), JSON.stringify({ ...prompt, at: Date.now() }));
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
    const prompt = saved && Date.now() - saved.at < PROMPT_KEPT_MS ? promptOf(saved) : null;
    if (prompt) return prompt;
  } catch { /* unreadable: forgotten below */ }
  forget();
  return null;
}

function elements() {
  const byId = (id) => document.getElementById(id);
  return {
    screen: byId("match"), title: byId("match-title"), intro: byId("match-intro"), context: byId("match-context"),
    options: byId("match-options"), form: byId("match-form"), label: byId("match-label"), input: byId("match-input"),
    submit: byId("match-submit"), error: byId("match-error"), retry: byId("match-retry"), report: byId("match-report"),
  };
}

/** While a pick or a report is on its way, every way to send another is off. */
function setSending(isSending) {
  const { options, submit, report } = elements();
  sending = isSending;
  for (const button of options.querySelectorAll("button")) button.disabled = isSending;
  submit.disabled = isSending;
  report.disabled = isSending;
}

async function pick(number) {
  const { error } = elements();
  if (sending) return undefined;
  setMessage(error, "");
  setSending(true);
  const result = await call("POST", "/continuations/match", { number });
  setSending(false);
  if (result.status === 200) {
    forget();
    return hooks.signedIn();
  }
  // No answer, or not a decided one: the pick may be tried again (a pick the server did take
  // answers continuation_invalid the second time).
  if (result.status === 0 || result.status >= 500 || result.code === "rate_limited") {
    return setMessage(error, messageFor(result, "match"));
  }
  forget();
  return hooks.refused(messageFor(result, "match"));
}

/** What was typed, as two ASCII digits if it is two digits at all ("" otherwise). */
function typedNumber(value) {
  const digits = String(value).trim().replace(/[\u0966-\u096F]/g, (digit) => String(digit.charCodeAt(0) - DEVANAGARI_ZERO));
  return TWO_DIGITS.test(digits) ? digits : "";
}

function submitTyped(event) {
  event.preventDefault();
  const { input, error } = elements();
  const number = typedNumber(input.value);
  if (!number) {
    input.setAttribute("aria-invalid", "true");
    setMessage(error, strings.continuation.typeShape);
    input.focus();
    return;
  }
  input.removeAttribute("aria-invalid");
  pick(number);
}

/** The calm end of a report: what happened, and that nothing else will. */
function showReported(message) {
  const { title, intro, context, options, form, error, retry, report } = elements();
  title.textContent = strings.continuation.reportedTitle;
  intro.textContent = message;
  for (const part of [context, form, retry, report]) part.hidden = true;
  options.replaceChildren();
  setMessage(error, "");
  show("reported");
  title.focus();
}

/** "This wasn't me": the server burns the link and tells the customer; the phone only says so. */
async function reportRequest() {
  const { error } = elements();
  if (sending) return undefined;
  setMessage(error, "");
  setSending(true);
  const result = await call("POST", "/continuations/report", {});
  setSending(false);
  if (result.status === 200) {
    forget();
    return showReported(strings.continuation.reported);
  }
  if (result.code === "continuation_invalid") {
    forget();
    return showReported(strings.continuation.reportEnded);
  }
  // Not decided (offline, a server error): the report may be sent again. messages.js has no
  // words of its own for this call, so only the network's are taken from it.
  return setMessage(error, result.status === 0 ? messageFor(result) : strings.continuation.reportFailed);
}

/** The question: the choices as large buttons, or the field to type the number in. */
function ask(prompt) {
  const { options, form, label, input, submit } = elements();
  const text = strings.continuation;
  const typed = prompt.matching === "type";
  form.hidden = !typed;
  options.hidden = typed;
  if (typed) {
    label.textContent = text.typeLabel;
    submit.textContent = text.typeSubmit;
    input.value = "";
    input.removeAttribute("aria-invalid");
    options.replaceChildren();
    return;
  }
  const buttons = prompt.options.map((number) => h("button", { type: "button", dataset: { testid: "match-option" } }, number));
  for (const button of buttons) button.addEventListener("click", () => pick(button.textContent));
  options.replaceChildren(...buttons);
}

/** The matching screen: where the request came from, the question, and "This wasn't me". */
function offer(prompt) {
  const { screen, title, intro, context, error, retry, report } = elements();
  const typed = prompt.matching === "type";
  title.textContent = typed ? strings.continuation.typeTitle : strings.page.matchTitle;
  intro.textContent = typed ? strings.continuation.typeIntro : prompt.app ? strings.continuation.appIntro : strings.page.matchIntro;
  setMessage(context, contextLine(prompt.context));
  setMessage(error, "");
  retry.hidden = true;
  report.textContent = strings.continuation.report;
  report.hidden = false;
  ask(prompt);
  setSending(false);
  show("match");
  focusHeading(screen);
}

/** Exchanges the secret for this device's question (and the claim cookie). */
export function openContinuation(secret) {
  return call("POST", "/continuations/open", { secret });
}

/** True when `result` (of openContinuation, or of a handoff for the customer's app) carries
 *  a question for this device. */
export function hasPrompt(result) {
  return result.status === 200 && promptOf(result.body, true) !== null;
}

/** Shows the answer of openContinuation(secret), or (no secret) a handoff's
 *  `{"status": "match", …}`: the question, or why not (with "Try again" when the network failed,
 *  else the sign-in). */
export async function showOpened(result, secret) {
  const prompt = result.status === 200 ? promptOf(result.body, !secret) : null;
  if (prompt) {
    unopened = "";
    keep(prompt);
    return offer(prompt);
  }
  if (result.status === 0 && secret) {
    unopened = secret;
    const { screen, options, form, context, report, error, retry } = elements();
    options.replaceChildren();
    for (const part of [form, context, report]) part.hidden = true;
    setMessage(error, messageFor(result, "open"));
    retry.hidden = false;
    show("match");
    return focusHeading(screen);
  }
  unopened = "";
  forget();
  return hooks.refused(messageFor(result, "open"));
}

/** After a reload on the matching screen: true when the question was shown again. */
export function resumeMatch() {
  const prompt = kept();
  if (!prompt) return false;
  offer(prompt);
  return true;
}

/** `signedIn()` runs after the right number; `refused(message)` when the link cannot be used. */
export function setUpMatch(signedIn, refused) {
  hooks = { signedIn, refused };
  const { retry, form, report } = elements();
  form.addEventListener("submit", submitTyped);
  report.addEventListener("click", reportRequest);
  retry.addEventListener("click", async () => {
    if (!unopened) return;
    retry.disabled = true;
    const result = await openContinuation(unopened);
    retry.disabled = false;
    await showOpened(result, unopened);
  });
}
