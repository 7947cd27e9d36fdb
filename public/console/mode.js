// The "Test data" switch: the console shows the account's live data unless the operator turns
// the switch on; then it shows only test data (made with sk_test_ keys), under a banner. The
// choice is a cookie the server reads (hosted_console_mode); it holds no secret and grants
// nothing: the session says whose data it is, the switch only which mode of it.
import { h } from "./dom.js";
import { strings } from "./strings.js";

const cookie = "hosted_console_mode";

/** Whether the console shows test data now. */
export function showsTestData() {
  return document.cookie.split(";").some((part) => part.trim() === `${cookie}=test`);
}

function choose(test) {
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = test
    ? `${cookie}=test; Path=/console; SameSite=Strict${secure}`
    : `${cookie}=; Path=/console; Max-Age=0; SameSite=Strict${secure}`;
  // Everything on the page was read in the other mode: read it again.
  location.reload();
}

/** The switch, for the header. */
export function modeSwitch() {
  const on = showsTestData();
  const button = h("button", {
    type: "button", role: "switch", className: "secondary small mode-switch", "aria-checked": on ? "true" : "false",
    dataset: { testid: "console-mode-test" },
  }, strings.mode.switchLabel);
  button.addEventListener("click", () => choose(!on));
  return button;
}

/** The banner over every page while test data is shown; nothing otherwise. */
export function renderModeBanner() {
  const main = document.getElementById("main");
  document.getElementById("test-banner")?.remove();
  if (!showsTestData()) return;
  main.prepend(h("div", { id: "test-banner", className: "test-banner", role: "note", dataset: { testid: "console-test-banner" } },
    h("strong", {}, strings.mode.bannerTitle), " ", strings.mode.bannerText));
}
