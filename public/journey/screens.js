// Which screen of the page is showing, mirrored in <body data-state> for tests.

const screens = {
  loading: "loading", signin: "signin", otp: "otp", step: "steps", submitted: "done", closed: "done",
  match: "match", reported: "match", elsewhere: "elsewhere", blocked: "blocked", resubmission: "resubmission",
};

export function show(state) {
  document.body.dataset.state = state;
  for (const section of document.querySelectorAll("[data-screen]")) {
    section.hidden = section.id !== screens[state];
  }
}
