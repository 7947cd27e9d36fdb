// The journey page: signs in (handoff first, else mobile + code), then shows the verification's
// steps while it is open, its outcome after. fragment.js has already taken the handoff secret.
import { call } from "./api.js";
import { stopCamera } from "./camera.js";
import { setMessage } from "./dom.js";
import { renderDone } from "./done.js";
import { messageFor } from "./messages.js";
import { show } from "./screens.js";
import { exchangeHandoff, setUpSignIn } from "./signin.js";
import { renderJourney } from "./steps.js";
import { loadStrings, translatePage } from "./strings.js";

const OPEN = ["created", "in_progress"];
const FINISHED = ["submitted", "approved", "rejected", "canceled", "expired"];

function render(state, notice, setback) {
  stopCamera();
  if (OPEN.includes(state.status)) renderJourney(state, actions, notice, setback);
  else renderDone(state.status);
}

const actions = { render, reload: (notice) => load(notice) };

/** Without a session a finished verification still shows its outcome; else sign in. */
async function signedOut() {
  stopCamera();
  const result = await call("GET", "/status");
  if (result.status === 200 && FINISHED.includes(result.body.status)) renderDone(result.body.status);
  else show("signin");
}

/** Shows why the state could not be loaded, with a retry button; "" hides both. */
function showLoadFailure(message) {
  setMessage(document.getElementById("load-error"), message);
  document.getElementById("load-retry").hidden = !message;
}

async function load(notice, setback) {
  showLoadFailure("");
  const result = await call("GET", "/state");
  if (result.status === 200 && Array.isArray(result.body.steps)) {
    render(result.body, notice, setback);
  } else if (result.code === "signin_required") {
    await signedOut();
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

function takeHandoffSecret() {
  const secret = window.hostedHandoff;
  delete window.hostedHandoff;
  return secret;
}

/** A handoff opened on top of the open journey changes only the fragment (no reload, so no
 *  fragment.js): strip it and exchange it here. */
function watchForLateHandoffs() {
  window.addEventListener("hashchange", async () => {
    const secret = new URLSearchParams(location.hash.slice(1)).get("handoff");
    history.replaceState(null, "", location.pathname + location.search);
    if (!secret) return;
    stopCamera();
    show("loading");
    await exchangeHandoff(secret);
    await load();
  });
}

async function start() {
  const secret = takeHandoffSecret();
  const setback = takeDigilockerSetback();
  const exchanged = secret ? exchangeHandoff(secret) : null;
  const retry = document.getElementById("load-retry");
  try {
    await loadStrings();
  } catch {
    retry.hidden = false; // no words to show without the catalogue: offer a reload
    retry.addEventListener("click", () => location.reload());
    return;
  }
  translatePage();
  watchForLateHandoffs();
  // Back (from DigiLocker, say) through the back/forward cache: the state may have moved on.
  window.addEventListener("pageshow", (event) => { if (event.persisted) load(); });
  retry.addEventListener("click", () => load());
  show("loading");
  setUpSignIn(show, load);
  await exchanged;
  await load(undefined, setback);
}

start();
