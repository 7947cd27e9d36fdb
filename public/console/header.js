// The header's signed-in part: who is signed in, the console's navigation, and signing out.
import { call } from "./api.js";
import { clearBrand, showBrand } from "../common/brand.js";
import { h } from "./dom.js";
import { roleName } from "./format.js";
import { consoleHref } from "./links.js";
import { modeSwitch, renderModeBanner } from "./mode.js";
import { strings } from "./strings.js";

function navLink(testid, href, text, current) {
  return h("li", {}, h("a", { href, dataset: { testid }, "aria-current": current ? "page" : null }, text));
}

async function signOut(button) {
  button.disabled = true;
  await call("POST", "/signout");
  // Whatever the answer, the console starts again from its front page (signed out by then,
  // or showing the sign-in screen if the session had already gone).
  location.assign(consoleHref("/console"));
}

/** Shows `operator` ({email, role}) as signed in; `page` (queue, detail, operators, analytics) is current. */
export function renderHeader(operator, page) {
  const links = [navLink("nav-queue", consoleHref("/console"), strings.header.queue, page === "queue"),
    navLink("nav-analytics", consoleHref("/console/analytics"), strings.header.analytics, page === "analytics")];
  if (operator.role === "admin") {
    links.push(navLink("nav-operators", consoleHref("/console/operators"), strings.header.operators, page === "operators"));
  }
  const signout = h("button", { type: "button", className: "secondary small", dataset: { testid: "signout" } }, strings.header.signout);
  signout.addEventListener("click", () => signOut(signout));
  renderBrand();
  renderModeBanner();
  document.getElementById("session-area").replaceChildren(
    h("nav", { className: "console-nav", "aria-label": strings.header.navLabel }, h("ul", {}, links)),
    modeSwitch(),
    h("div", { className: "who" },
      h("p", {},
        h("span", { className: "visually-hidden" }, `${strings.header.signedInAs} `),
        h("span", { className: "who-email", dataset: { testid: "operator-email" } }, operator.email || ""),
        " ",
        h("span", { className: "role", dataset: { testid: "operator-role", role: operator.role || "" } }, roleName(operator.role))),
      signout),
  );
}

/** The operator's account's name and logo beside the console's title (its colours are not
 *  used here: the console keeps its own look). */
async function renderBrand() {
  const brand = await call("GET", "/brand");
  if (brand.status === 200) showBrand({ display_name: brand.body.display_name, logo_url: brand.body.logo_url });
}

/** Signed out: no navigation, no name, no sign-out button, no brand. */
export function clearHeader() {
  clearBrand();
  document.getElementById("test-banner")?.remove();
  document.getElementById("session-area").replaceChildren();
}
