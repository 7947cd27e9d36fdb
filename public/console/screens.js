// Which screen of the page is showing, mirrored in <body data-state> for tests.
import { strings } from "./strings.js";

const sections = {
  loading: "loading", signin: "signin", setup: "setup", "setup-done": "setup-done",
  queue: "queue", detail: "detail", operators: "operators", analytics: "analytics", error: "error-screen",
};

/** Shows `state`'s section, or `section` when a state borrows another's (the setup page's
 *  errors are shown inside the setup section, in state `error`). */
export function show(state, section = sections[state]) {
  document.body.dataset.state = state;
  for (const element of document.querySelectorAll("[data-screen]")) {
    element.hidden = element.id !== section;
  }
  const titles = strings.titles;
  if (titles) {
    const name = titles[state === "setup-done" || section === "setup" ? "setup" : state];
    document.title = name ? `${name} – ${strings.page.title}` : strings.page.title;
  }
}

/** The error screen, saying `message`. */
export function showPageError(message) {
  document.getElementById("page-error").textContent = message;
  show("error");
  document.getElementById("error-title").focus();
}
