// The journey page: signs in (handoff first, else mobile + code) and shows where the user is.
// fragment.js has already taken the handoff secret out of the address bar.
import { call } from "./api.js";
import { exchangeHandoff, setUpSignIn } from "./signin.js";
import { strings } from "./strings.js";

const screens = { loading: "loading", signin: "signin", otp: "otp", step: "steps", submitted: "done", closed: "done" };

function show(state) {
  document.body.dataset.state = state;
  for (const section of document.querySelectorAll("[data-screen]")) {
    section.hidden = section.id !== screens[state];
  }
}

function renderDone(status) {
  const element = document.getElementById("journey-status");
  element.dataset.status = status;
  element.textContent = strings.status[status] || status;
  show(status === "submitted" ? "submitted" : "closed");
}

function renderSteps(state) {
  const list = document.getElementById("step-list");
  const area = document.getElementById("step-area");
  list.replaceChildren();
  area.replaceChildren();
  const current = state.steps.find((step) => step.status !== "completed");
  for (const step of state.steps) {
    const item = document.createElement("li");
    item.textContent = strings.stepNames[step.type] || step.id;
    if (step.status === "completed") item.className = "completed";
    if (current && step.id === current.id) item.setAttribute("aria-current", "step");
    list.append(item);
  }
  if (current) {
    const container = document.createElement("section");
    container.dataset.testid = `step-${current.id}`;
    container.id = `step-${current.id}`;
    const heading = document.createElement("h2");
    heading.textContent = strings.stepNames[current.type] || current.id;
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = strings.stepPending;
    container.append(heading, note);
    area.append(container);
  }
  const status = document.getElementById("journey-status");
  status.dataset.status = state.status;
  show("step");
}

/** Shows the journey for the signed-in user, or the sign-in screen. */
async function load() {
  const result = await call("GET", "/state");
  if (result.status !== 200) {
    show("signin");
    return;
  }
  const state = result.body;
  if (state.status === "created" || state.status === "in_progress") {
    renderSteps(state);
  } else {
    renderDone(state.status);
  }
}

/** The handoff secret fragment.js kept in memory, taken exactly once. */
function takeHandoffSecret() {
  const secret = window.hostedHandoff;
  delete window.hostedHandoff;
  return secret;
}

/** A handoff URL opened on top of an already-open journey changes only the fragment: no reload,
 *  so fragment.js does not run again. Strip it and exchange it here the same way. */
function watchForLateHandoffs() {
  window.addEventListener("hashchange", async () => {
    const secret = new URLSearchParams(location.hash.slice(1)).get("handoff");
    history.replaceState(null, "", location.pathname + location.search);
    if (!secret) return;
    show("loading");
    await exchangeHandoff(secret);
    await load();
  });
}

async function start() {
  watchForLateHandoffs();
  show("loading");
  setUpSignIn(show, load);
  const secret = takeHandoffSecret();
  if (secret) await exchangeHandoff(secret);
  await load();
}

start();
