// The journey page: signs in (handoff first, or a continuation from another device with its
// number, else mobile + code), then shows the verification's steps while it is open, its
// outcome after. fragment.js has already taken the handoff or continuation secret.
import { call } from "./api.js";
import { applyBrand, fetchBrand } from "./brand.js";
import { stopCamera } from "./camera.js";
import { setMessage } from "./dom.js";
import { renderDone } from "./done.js";
import { stopFollowing } from "./elsewhere.js";
import { hasPrompt, openContinuation, resumeMatch, setUpMatch, showOpened } from "./match.js";
import { messageFor } from "./messages.js";
import { renderResubmission, reopenedSteps } from "./resubmission.js";
import { show } from "./screens.js";
import { exchangeHandoff, setUpSignIn } from "./signin.js";
import { renderJourney } from "./steps.js";
import { loadStrings, translatePage } from "./strings.js";

/** Statuses the user can still work on: VerificationStatus.isEditable on the server. */
const EDITABLE = ["created", "in_progress", "resubmission_requested"];
const FINISHED = ["submitted", "approved", "rejected", "canceled", "expired", "closed"];

/** Set once the user starts redoing what a reviewer asked for (the screen is not shown again). */
let resubmissionStarted = false;

/** The resubmission screen comes first while none of the reopened steps is redone yet. */
function resubmissionFirst(state, setback) {
  if (resubmissionStarted || setback || !state.resubmission) return false;
  return reopenedSteps(state).every((step) => step.status !== "completed");
}

function render(state, notice, setback) {
  stopCamera();
  if (EDITABLE.includes(state.status) && resubmissionFirst(state, setback)) {
    renderResubmission(state, () => {
      resubmissionStarted = true;
      renderJourney(state, actions, notice);
    });
  } else if (EDITABLE.includes(state.status)) {
    renderJourney(state, actions, notice, setback);
  } else {
    stopFollowing();
    renderDone(state.status, state.continued === true);
  }
}

const actions = { render, reload: (notice) => load(notice) };

/** Without a session a finished verification still shows its outcome; else sign in, with
 *  `signinNotice` (why a continuation could not sign this device in) above the form. */
async function signedOut(signinNotice) {
  stopCamera();
  stopFollowing();
  const result = await call("GET", "/status");
  if (result.status === 200 && FINISHED.includes(result.body.status)) {
    renderDone(result.body.status);
  } else {
    show("signin");
    if (signinNotice) setMessage(document.getElementById("signin-error"), signinNotice);
  }
}

/** Shows why the state could not be loaded, with a retry button; "" hides both. */
function showLoadFailure(message) {
  setMessage(document.getElementById("load-error"), message);
  document.getElementById("load-retry").hidden = !message;
}

async function load(notice, setback, signinNotice) {
  showLoadFailure("");
  const result = await call("GET", "/state");
  if (result.status === 200 && Array.isArray(result.body.steps)) {
    render(result.body, notice, setback);
  } else if (result.code === "signin_required") {
    await signedOut(signinNotice);
  } else {
    stopCamera();
    show("loading");
    showLoadFailure(messageFor(result, "load"));
  }
}

/** The server's word on a DigiLocker round trip that came back without the documents
 *  (`?digilocker=denied`), taken off the address so a reload does not repeat it. */
function takeDigilockerSetback() {
  const query = new URLSearchParams(location.search);
  const setback = query.get("digilocker");
  if (!setback) return undefined;
  query.delete("digilocker");
  const rest = query.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : ""));
  return setback;
}

/** fragment.js's `hostedHandoff` or `hostedContinuation`, taken once. */
function takeSecret(name) {
  const secret = window[name];
  delete window[name];
  return secret;
}

/** After a handoff's exchange: the number to match first when it joined the computer's
 *  continuation (the customer's app), else the journey (signed in, or the sign-in). */
async function afterHandoff(exchanged) {
  if (exchanged && hasPrompt(exchanged)) return showOpened(exchanged, "");
  return load();
}

/** A handoff or continuation opened on top of the open journey changes only the fragment (no
 *  reload, so no fragment.js): strip it and use it here. */
function watchForLateHandoffs() {
  window.addEventListener("hashchange", async () => {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const secret = fragment.get("handoff");
    const continuation = fragment.get("continue");
    history.replaceState(null, "", location.pathname + location.search);
    if (!secret && !continuation) return;
    stopCamera();
    stopFollowing();
    show("loading");
    if (continuation) {
      await showOpened(await openContinuation(continuation), continuation);
      return;
    }
    await afterHandoff(await exchangeHandoff(secret));
  });
}

async function start() {
  const secret = takeSecret("hostedHandoff");
  const continuation = takeSecret("hostedContinuation");
  // Before anything else: this device's claim on the continuation, while the page gets ready.
  const opened = continuation ? openContinuation(continuation) : null;
  const setback = takeDigilockerSetback();
  const exchanged = secret ? exchangeHandoff(secret) : null;
  const brand = fetchBrand();
  const retry = document.getElementById("load-retry");
  try {
    await loadStrings();
  } catch {
    retry.hidden = false; // no words to show without the catalogue: offer a reload
    retry.addEventListener("click", () => location.reload());
    return;
  }
  translatePage();
  applyBrand(await brand);
  watchForLateHandoffs();
  // Back (from DigiLocker, say) through the back/forward cache: the state may have moved on
  // (not while choosing a continuation's number: that comes before any state).
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && !["match", "reported"].includes(document.body.dataset.state)) load();
  });
  retry.addEventListener("click", () => load());
  show("loading");
  setUpSignIn(show, load);
  // After the right number the journey goes on as after a handoff; else sign in as usual.
  setUpMatch(() => load(), (message) => load(message, undefined, message));
  const handed = await exchanged;
  if (opened) {
    await showOpened(await opened, continuation);
    return;
  }
  if (handed && hasPrompt(handed)) {
    await showOpened(handed, "");
    return;
  }
  if (!secret && resumeMatch()) return;
  await load(undefined, setback);
}

start();
