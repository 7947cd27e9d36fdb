// Continuing on another device, the first device's side: a single-use link to this journey,
// shown as a QR code beside a two-digit number the phone must pick or type (or texted to the
// verification's mobile number, or sent on by the customer's own app: inapp.js). Offered by a
// button on the step screens, and by itself on a photo step of a device without a camera. Then
// this page follows (long-poll): while the phone works, `body[data-state=elsewhere]` lists the
// steps done so far; once the phone submits, this page goes where a submit here would have gone.
// A phone that says "This wasn't me" puts this page on the blocked screen (blocked.js).
import { call } from "./api.js";
import { blockedError, endBlocked, showBlocked } from "./blocked.js";
import { cameraAvailable, stopCamera } from "./camera.js";
import { renderDone } from "./done.js";
import { announce, errorLine, focusHeading, h, heading, setMessage } from "./dom.js";
import { buildAppOffer, hideAppOffer, requestApp, showAppOffer } from "./inapp.js";
import { messageFor } from "./messages.js";
import { goTo } from "./navigate.js";
import { buildProgress, updateProgress } from "./phoneprogress.js";
import { PHOTO_STEPS } from "./photoplan.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

/** Statuses the user can still work on: VerificationStatus.isEditable on the server. */
const EDITABLE = ["created", "in_progress", "resubmission_requested"];
/** Long-poll: the server holds the call until something changes, or for this long. */
const WAIT_SECONDS = 25;
/** Expired codes replaced without being asked, per panel; then "Show a new code". */
const AUTO_RENEWALS = 3;
/** Pause before asking again after a failed call. */
const RETRY_MS = 2000;

/** The continuation this page shows and follows: {state, actions, mode ("asked" | "auto"),
 *  active, matched, leaving, controller, secret, expiresAt, view, list}. One at a time. */
let run = null;
/** "Continue on this device instead" was chosen: no more offers by themselves on this page. */
let declined = false;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The secret of the link (its `#continue=` fragment), which texting it presents. */
function secretOf(url) {
  const hash = url.indexOf("#");
  return hash < 0 ? "" : new URLSearchParams(url.slice(hash + 1)).get("continue") || "";
}

/** Whether the answer's continuation is the link this page shows: the answers carry no id, and
 *  a link's expiry (whole seconds) is its creation time plus a fixed lifetime. A second's leeway
 *  for the stored time's rounding; so a link made by another window within that second passes
 *  for this one. */
function sameLink(a, b) {
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isFinite(x) && Number.isFinite(y) ? Math.abs(x - y) <= 1000 : a === b;
}

/** Stops following and takes this continuation's screens away. */
function end(r) {
  if (!r) return;
  r.active = false;
  if (r.controller) r.controller.abort();
  r.view.root.remove();
  if (r.matched) document.getElementById("elsewhere").replaceChildren();
  if (r.blocked) endBlocked();
  if (run === r) run = null;
}

/** Leaving the journey's steps for another screen (signed out, closed, submitted here). */
export function stopFollowing() {
  end(run);
}

/** Back to the steps, which reload the state. */
function backToSteps(r) {
  end(r);
  r.actions.reload();
}

// --- the panel: number, QR code, text message ------------------------------------------

function showLink(r, body, reason) {
  const { view } = r;
  const text = strings.continuation;
  r.secret = secretOf(body.url);
  r.expiresAt = body.expires_at;
  const typed = body.matching === "type"; // the phone types the number instead of choosing it
  view.number.textContent = body.number;
  view.number.setAttribute("aria-label", (typed ? text.numberLabelType : text.numberLabel)(body.number));
  view.pick.textContent = typed ? text.pickType : text.pick;
  view.caption.textContent = typed ? text.numberCaptionType : text.numberCaption;
  view.qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(body.qr_svg)}`;
  view.code.hidden = false;
  view.sms.hidden = false;
  view.sms.disabled = false;
  view.fresh.hidden = true;
  showAppOffer(view.app, body.app);
  setMessage(view.reason, reason);
  setMessage(view.status, "");
  setMessage(view.smsLine, "");
  setMessage(view.error, "");
}

/** The shown link can no longer be used: its code goes, "Show a new code" comes. */
function showDead(r, message) {
  const { view } = r;
  view.code.hidden = true;
  view.sms.hidden = true;
  hideAppOffer(view.app);
  setMessage(view.smsLine, "");
  setMessage(view.status, "");
  setMessage(view.reason, message);
  view.fresh.hidden = false;
}

/** Makes a new link (the server revokes the one before); `reason` says why there is a new one.
 *  True when the link is shown. */
async function renew(r, reason) {
  const { view } = r;
  view.fresh.disabled = true;
  setMessage(view.error, "");
  if (view.code.hidden) setMessage(view.status, strings.continuation.creating);
  const result = await call("POST", "/continuations", undefined, r.controller && r.controller.signal);
  view.fresh.disabled = false;
  if (!r.active) return false;
  const body = result.body;
  if (result.status === 201 && typeof body.url === "string" && typeof body.number === "string" && typeof body.qr_svg === "string") {
    showLink(r, body, reason);
    if (r.blocked) unblock(r);
    return true;
  }
  if (result.code === "rate_limited") {
    block(r, Number(result.retryAfter) || 60, true); // still in the pause after a report
    return false;
  }
  if (result.code === "signin_required" || result.code === "verification_closed") {
    backToSteps(r);
    return false;
  }
  setMessage(view.status, "");
  setMessage(view.error, messageFor(result, "continuation"));
  view.fresh.hidden = false;
  if (r.blocked) blockedError(messageFor(result, "continuation")); // the panel is out of sight
  return false;
}

async function textLink(r) {
  const { view } = r;
  view.sms.disabled = true;
  setMessage(view.smsLine, "");
  setMessage(view.error, "");
  const result = await call("POST", "/continuations/sms", { secret: r.secret }, r.controller && r.controller.signal);
  if (!r.active) return;
  view.sms.disabled = false;
  if (result.status === 202) return setMessage(view.smsLine, strings.continuation.smsSent);
  if (result.code === "continuation_invalid") return renew(r, strings.continuation.replaced);
  if (result.code === "signin_required" || result.code === "verification_closed") return backToSteps(r);
  return setMessage(view.error, messageFor(result, "sms"));
}

/** "Continue in the app": the code stays, the phone still matches its number. */
async function askApp(r) {
  const { view } = r;
  setMessage(view.error, "");
  const result = await requestApp(view.app, r.controller && r.controller.signal);
  if (!r.active || result.status === 202) return undefined;
  // No live code any more (opened, burnt, expired): a new one, as for a text message.
  if (result.code === "no_continuation_requested" || result.code === "continuation_invalid") {
    return renew(r, strings.continuation.replaced);
  }
  if (result.code === "signin_required" || result.code === "verification_closed") return backToSteps(r);
  return setMessage(view.error, result.status === 0 ? messageFor(result) : strings.continuation.appFailed);
}

// --- after "This wasn't me" on the phone ---------------------------------------------------

/** The blocked screen, counting down `seconds` (`exact`: a refused create's Retry-After, else a
 *  poll's blocked_seconds); its button makes the new code. */
function block(r, seconds, exact = false) {
  r.blocked = true;
  stopCamera();
  showBlocked(seconds, async () => {
    if (await renew(r, "")) follow(r);
  }, (error) => hereButton(r, error), exact);
}

/** A new code after the pause: back to the panel. */
function unblock(r) {
  r.blocked = false;
  endBlocked();
  show("step");
  focusHeading(r.view.root);
}

/** "Continue on this device instead": ends a link not yet used (a phone already signed in keeps
 *  going), then the steps again. */
async function continueHere(r, button, error) {
  r.leaving = true;
  button.disabled = true;
  setMessage(error, "");
  const result = await call("DELETE", "/continuations/current");
  if (!r.active) return;
  const settled = result.status === 204 || result.code === "signin_required" || result.code === "verification_closed";
  if (!settled) {
    r.leaving = false;
    button.disabled = false;
    setMessage(error, messageFor(result));
    return;
  }
  declined = true;
  backToSteps(r);
}

function hereButton(r, error) {
  const button = h("button", { type: "button", className: "secondary", dataset: { testid: "continue-here" } },
    strings.continuation.here);
  button.addEventListener("click", () => continueHere(r, button, error));
  return button;
}

function buildPanel(r) {
  const text = strings.continuation;
  const number = h("output", { className: "number", dataset: { testid: "continuation-number" } });
  const qr = h("img", { className: "qr", alt: text.qrAlt, width: 220, height: 220, dataset: { testid: "continuation-qr" } });
  const caption = h("p", { className: "muted", "aria-hidden": "true" }, text.numberCaption);
  const view = {
    number,
    qr,
    caption,
    pick: h("li", {}, text.pick),
    note: h("p", { className: "note", hidden: r.mode !== "auto" }, text.noCamera),
    reason: h("p", { className: "note", role: "status", hidden: true }),
    code: h("div", { className: "link-code", hidden: true }, qr,
      h("div", { className: "number-box" }, caption, number)),
    status: h("p", { role: "status", hidden: true }),
    sms: h("button", { type: "button", className: "secondary", hidden: true, dataset: { testid: "continuation-sms" } }, text.sms),
    smsLine: h("p", { role: "status", hidden: true }),
    error: errorLine(),
    fresh: h("button", { type: "button", hidden: true }, text.newCode),
    app: buildAppOffer(),
  };
  view.sms.addEventListener("click", () => textLink(r));
  view.app.button.addEventListener("click", () => askApp(r));
  view.fresh.addEventListener("click", async () => {
    if (await renew(r, "")) follow(r);
  });
  view.root = h("section", { id: "continuation", className: "continuation", dataset: { testid: "continuation" },
    "aria-labelledby": "continuation-title" },
    heading(text.title, "continuation-title"), view.note, view.reason,
    h("ol", { className: "how" }, h("li", {}, text.scan), view.pick),
    view.code, h("p", { className: "muted" }, text.validFor), view.status, view.app.button, view.app.line,
    view.sms, view.smsLine, view.error,
    view.fresh, hereButton(r, view.error));
  return view;
}

/** Puts the panel on the steps screen: instead of the step when asked for, above it (camera
 *  and file input still there) when offered for want of a camera. */
function place(r, screen) {
  if (r.mode === "asked") {
    screen.replaceWith(r.view.root);
    stopCamera();
    focusHeading(r.view.root);
  } else {
    screen.before(r.view.root);
  }
}

async function begin(screen, state, actions, mode) {
  end(run);
  const r = {
    state, actions, mode, active: true, matched: false, leaving: false, following: false, blocked: false,
    controller: typeof AbortController === "function" ? new AbortController() : null, secret: "", expiresAt: null,
  };
  r.view = buildPanel(r);
  run = r;
  const offer = screen.querySelector('[data-testid="continue-elsewhere"]');
  if (offer) offer.remove();
  place(r, screen);
  if (mode === "auto") announce(strings.continuation.noCamera);
  if (await renew(r, "")) follow(r);
}

// --- while the phone works ---------------------------------------------------------------

function showElsewhere(r, steps) {
  stopCamera();
  if (!r.matched) {
    r.matched = true;
    r.view.root.remove();
    r.list = buildProgress((error) => hereButton(r, error));
  }
  if (steps) r.steps = steps;
  updateProgress(r.list, r.steps || r.state.steps, r.state.steps);
  if (document.body.dataset.state !== "elsewhere") {
    show("elsewhere");
    focusHeading(document.getElementById("elsewhere"));
  }
}

/** The phone submitted: where a submit here would have gone (the submitted screen first). */
function finish(r, redirect) {
  end(r);
  renderDone("submitted");
  goTo(redirect);
}

/** One answer of the follow loop. */
async function handle(r, answer) {
  if (answer.status === "submitted") return finish(r, answer.redirect_url);
  if (!EDITABLE.includes(answer.status)) return backToSteps(r); // closed: the steps reload show it
  const steps = Array.isArray(answer.steps) ? answer.steps : undefined;
  const link = answer.continuation;
  if (r.matched || (link && link.status === "matched")) return showElsewhere(r, steps);
  if (!link) return undefined;
  const text = strings.continuation;
  // "This wasn't me" on the phone: the link this page shows (an older answer about a link
  // already replaced here says nothing new).
  if (link.status === "reported") {
    return !r.expiresAt || sameLink(link.expires_at, r.expiresAt) ? block(r, answer.blocked_seconds) : undefined;
  }
  if (r.blocked) return undefined; // the new code comes when the user asks for it
  // Another window made a newer link, or ended this one: no new one by itself (two windows
  // would take turns replacing each other's), but one on request.
  if (!sameLink(link.expires_at, r.expiresAt) || link.status === "revoked") return showDead(r, text.stale);
  if (link.status === "failed") return renew(r, text.wrongNumber);
  // A page left open makes a new code by itself a few times only: each one is an event (and a
  // webhook) for the customer, and nobody may be looking any more.
  if (link.status === "expired") {
    r.autoRenewals = (r.autoRenewals || 0) + 1;
    return r.autoRenewals <= AUTO_RENEWALS ? renew(r, text.expired) : showDead(r, text.expired);
  }
  if (link.status === "opened") {
    setMessage(r.view.status, text.opened);
    setMessage(r.view.smsLine, "");
    r.view.sms.hidden = true; // an opened link cannot be texted (or sent to the app) any more
    hideAppOffer(r.view.app);
    r.view.fresh.hidden = false; // not the user's phone? a new code shuts it out
  }
  return undefined;
}

/** Follows the continuation until the run ends: each call waits for a change after the last
 *  answer's tag; a failed one is asked again after a pause. */
async function follow(r) {
  if (r.following) return;
  r.following = true;
  let since = "";
  while (r.active) {
    const query = `?wait=${WAIT_SECONDS}${since ? `&since=${encodeURIComponent(since)}` : ""}`;
    const result = await call("GET", `/continuations/current${query}`, undefined, r.controller && r.controller.signal);
    if (!r.active) return;
    if (result.status === 200 && typeof result.body.tag === "string") {
      since = result.body.tag;
      if (!r.leaving) await handle(r, result.body);
    } else if (result.code === "signin_required") {
      backToSteps(r);
    } else {
      await pause(result.status === 429 ? Math.max(1, Number(result.retryAfter) || 1) * 1000 : RETRY_MS);
    }
  }
}

// --- offered on the steps screen ---------------------------------------------------------

async function offerIfNoCamera(screen, state, actions) {
  if (await cameraAvailable()) return;
  if (!screen.isConnected || run || declined) return;
  await begin(screen, state, actions, "auto");
}

/** Called with each steps screen (`screen`, the step's section, or the review's when `current`
 *  is undefined): brings back a continuation under way, else offers one — the button on every
 *  photo step and, until a photo step is done, on the others; by itself on a photo step where
 *  this device has no camera. Not on a device that is itself the continuation. */
export function offerContinuation(screen, state, actions, current) {
  if (state.continued === true) return;
  if (run) {
    run.state = state;
    run.actions = actions;
    if (run.matched) return showElsewhere(run);
    if (current) return place(run, screen);
    // Everything is done on this device: the link is no use any more.
    end(run);
    call("DELETE", "/continuations/current");
    return undefined;
  }
  if (!current) return undefined;
  const photo = PHOTO_STEPS.includes(current.type);
  const photoDone = state.steps.some((step) => PHOTO_STEPS.includes(step.type) && step.status === "completed");
  if (!photo && photoDone) return undefined;
  const button = h("button", { type: "button", className: "secondary offer", dataset: { testid: "continue-elsewhere" } },
    strings.continuation.offer);
  button.addEventListener("click", () => begin(screen, state, actions, "asked"));
  screen.append(button);
  if (photo && !declined) offerIfNoCamera(screen, state, actions);
  return undefined;
}
