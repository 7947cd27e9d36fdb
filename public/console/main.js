// The operator console: one page for every console address. Routes by location.pathname:
//   /console                    sign-in when signed out, else the review queue
//   /console/setup              a new operator's setup (fragment.js took its token already)
//   /console/verifications/ID   one verification: its data, timeline, notes and the decision
//   /console/operators          the account's operators (administrators only)
//   /console/analytics          journey analytics: where users drop off
import { renderAnalytics } from "./analytics.js";
import { call, signedOut, whenSignInRequired } from "./api.js";
import { setUpFullImage } from "./artifacts.js";
import { renderDetail } from "./detail.js";
import { renderHeader } from "./header.js";
import { consoleHref } from "./links.js";
import { messageFor } from "./messages.js";
import { renderOperators } from "./operators.js";
import { renderQueue } from "./queue.js";
import { show, showPageError } from "./screens.js";
import { renderSetup, watchForLateTokens } from "./setup.js";
import { setUpSignIn, showSignIn } from "./signin.js";
import { loadStrings, strings, translatePage, updateLanguageSwitch } from "./strings.js";

/** The address without trailing slashes (`/console/` is `/console`). */
function currentPath() {
  return location.pathname.replace(/\/+$/, "") || "/";
}

/** Which console page an address is, with its verification id for the detail. */
function pageOf(path) {
  if (path === "/console") return { page: "queue" };
  if (path === "/console/operators") return { page: "operators" };
  if (path === "/console/analytics") return { page: "analytics" };
  const match = path.match(/^\/console\/verifications\/([^/]+)$/);
  if (match) {
    try {
      return { page: "detail", id: decodeURIComponent(match[1]) };
    } catch {
      return { page: "unknown" };
    }
  }
  return { page: "unknown" };
}

/** True once a signed-in screen has shown: a later sign-in screen means the session ended. */
let wasSignedIn = false;

/** Shows the page the address names (re-run after signing in and on back/forward). */
async function route() {
  updateLanguageSwitch();
  const path = currentPath();
  if (path === "/console/setup") {
    await renderSetup();
    return;
  }
  const { page, id } = pageOf(path);
  const me = await call("GET", "/me");
  if (signedOut(me)) return; // the sign-in screen is showing
  if (me.status !== 200) {
    showPageError(messageFor(me, "load"));
    return;
  }
  wasSignedIn = true;
  const ctx = { me: me.body, route };
  renderHeader(me.body, page);
  if (page === "queue") await renderQueue(ctx);
  else if (page === "detail") await renderDetail(ctx, id);
  else if (page === "operators") await renderOperators(ctx);
  else if (page === "analytics") await renderAnalytics(ctx);
  else showPageError(strings.errors.pageNotFound);
}

async function start() {
  const retry = document.getElementById("load-retry");
  retry.addEventListener("click", () => location.reload());
  try {
    await loadStrings();
  } catch {
    retry.hidden = false; // no words to show without the catalogue: offer a reload
    return;
  }
  translatePage();
  document.getElementById("error-retry").addEventListener("click", () => location.reload());
  document.getElementById("error-home").href = consoleHref("/console");
  setUpFullImage();
  whenSignInRequired(() => showSignIn(wasSignedIn));
  setUpSignIn(route);
  window.addEventListener("popstate", () => route());
  watchForLateTokens(route);
  show("loading");
  await route();
}

start();
