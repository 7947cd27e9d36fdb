// The setup page (`/console/setup#token=…`, from `hosted operators create`): shows the TOTP
// secret as a QR code and as text, then sets the password and checks a first code.
// fragment.js has already taken the token out of the address.
import { call } from "./api.js";
import { focusHeading, setFieldError, setMessage } from "./dom.js";
import { roleName } from "./format.js";
import { consoleHref } from "./links.js";
import { messageFor, setupFieldMessage } from "./messages.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

const TOKEN_KEY = "hosted_console_setup";
const CODE = /^[0-9]{6}$/;

function storeToken(token) {
  try {
    sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    window.hostedConsoleSetup = token;
  }
}

function readToken() {
  try {
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) return saved;
  } catch { /* storage refused: fragment.js kept it on window instead */ }
  return window.hostedConsoleSetup || "";
}

/** Setup is done (or the link is dead): the token has no further use. */
function forgetToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* nothing stored */ }
  delete window.hostedConsoleSetup;
}

const element = (id) => document.getElementById(id);

function showSetupError(text) {
  setMessage(element("setup-error"), text);
}

/** The setup cannot go on (no token, or the link is used, expired or unknown). */
function fail(message) {
  element("setup-body").hidden = true;
  showSetupError(message);
  show("error", "setup");
  focusHeading(element("setup"));
}

function showEnrolment(answer) {
  element("setup-account").textContent = strings.setup.account(answer.email || "", roleName(answer.role));
  element("setup-username").value = String(answer.email || ""); // for password managers to save

  const qr = element("setup-qr");
  qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(String(answer.qr_svg || ""))}`;
  qr.alt = strings.setup.qrAlt(answer.email || "");
  qr.hidden = !answer.qr_svg;
  // Exactly the secret (tests and people copy it); CSS spaces its letters for reading.
  element("setup-totp-secret").textContent = String(answer.secret || "");
  // On a phone the app is on the same device: the otpauth: link opens it directly.
  const uri = String(answer.otpauth_uri || "");
  element("setup-app-link-line").hidden = !uri.startsWith("otpauth://");
  if (uri.startsWith("otpauth://")) element("setup-app-link").href = uri;
  element("setup-body").hidden = false;
}

const fields = {
  password: ["setup-password", "setup-password-error"],
  confirm: ["setup-password-confirm", "setup-password-confirm-error"],
  code: ["setup-totp-code", "setup-totp-code-error"],
};

function setError(name, text) {
  const [input, error] = fields[name];
  setFieldError(element(input), element(error), text);
}

function clearErrors() {
  for (const name of Object.keys(fields)) setError(name, "");
  showSetupError("");
}

/** Checks the form here first: both passwords typed and alike, a 6-digit code. The password's
 *  own rules (length, common passwords) are the server's. */
function localProblems(values) {
  const problems = {};
  if (!values.password) problems.password = strings.setup.passwordMissing;
  else if (values.password !== values.confirm) problems.confirm = strings.setup.mismatch;
  if (!CODE.test(values.code)) problems.code = strings.setup.codeShape;
  return problems;
}

function showProblems(problems) {
  const names = Object.keys(problems);
  for (const name of names) setError(name, problems[name]);
  showSetupError(names.map((name) => problems[name]).join(" "));
  if (names.length) element(fields[names[0]][0]).focus();
}

/** The server's refusal: each field error next to its field and all of them on the form's line. */
function showRefusal(result) {
  const problems = {};
  for (const error of result.errors) {
    const name = error.field === "code" ? "code" : error.field === "password" ? "password" : null;
    if (name) problems[name] = setupFieldMessage(error);
  }
  if (Object.keys(problems).length) showProblems(problems);
  else showSetupError(messageFor(result, "setupComplete"));
  if (problems.code || result.code === "code_invalid") {
    element("setup-totp-code").value = "";
    element("setup-totp-code").focus();
  }
}

/** The token the form completes: the one shown last (a later link opened in the same tab
 *  replaces it). */
let currentToken = "";
let formWired = false;

function wireForm() {
  if (formWired) return;
  formWired = true;
  const button = element("setup-submit");
  element("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const values = {
      password: element("setup-password").value,
      confirm: element("setup-password-confirm").value,
      code: element("setup-totp-code").value.replace(/\s+/g, ""),
    };
    const problems = localProblems(values);
    if (Object.keys(problems).length) {
      showProblems(problems);
      return;
    }
    button.disabled = true;
    const result = await call("POST", "/setup/complete", { token: currentToken, password: values.password, code: values.code });
    button.disabled = false;
    if (result.status === 200) {
      forgetToken();
      for (const id of ["setup-password", "setup-password-confirm", "setup-totp-code"]) element(id).value = "";
      element("setup-signin-link").href = consoleHref("/console");
      show("setup-done");
      focusHeading(element("setup-done"));
    } else if (result.code === "setup_link_invalid") {
      forgetToken();
      fail(strings.setup.linkInvalid);
    } else {
      showRefusal(result);
    }
  });
}

/** The `token` of a fragment, as fragment.js reads it ("+" stays "+"). */
function tokenOf(fragment) {
  const match = /(?:^|&)token=([^&]*)/.exec(fragment);
  if (!match) return "";
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** A setup link opened on top of this very page changes only the fragment (no reload, so no
 *  fragment.js): strip it and start again with its token. */
export function watchForLateTokens(onToken) {
  window.addEventListener("hashchange", () => {
    if (!location.hash || location.pathname.replace(/\/+$/, "") !== "/console/setup") return;
    const token = tokenOf(location.hash.slice(1));
    history.replaceState(null, "", location.pathname + location.search);
    if (!token) return;
    storeToken(token);
    onToken();
  });
}

export async function renderSetup() {
  const token = readToken();
  if (!token) {
    fail(strings.setup.missingToken);
    return;
  }
  const result = await call("POST", "/setup", { token });
  if (result.status !== 200) {
    if (result.code === "setup_link_invalid") forgetToken();
    fail(messageFor(result, "load"));
    return;
  }
  currentToken = token;
  clearErrors();
  showEnrolment(result.body);
  wireForm();
  show("setup");
  focusHeading(element("setup"));
}
