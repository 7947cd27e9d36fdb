// Sign-in: email, password and the authenticator app's 6-digit code. The server answers every
// failure alike (unknown email, wrong password or code, locked, disabled), and so does the page.
import { call } from "./api.js";
import { setMessage } from "./dom.js";
import { clearHeader } from "./header.js";
import { messageFor } from "./messages.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

const CODE = /^[0-9]{6}$/;

function showError(text) {
  setMessage(document.getElementById("console-error"), text);
}

/** Shows the sign-in form on whichever console address needed it: once signed in, that page
 *  is shown (main.js routes again). `sessionEnded` says why a signed-in screen went away. */
export function showSignIn(sessionEnded) {
  clearHeader();
  document.getElementById("artifact-full").close?.();
  setMessage(document.getElementById("signin-notice"), sessionEnded ? strings.signin.sessionEnded : "");
  showError("");
  show("signin");
  document.getElementById("signin-title").focus();
}

/** Wires the sign-in form; `onSignedIn` runs after a successful sign-in. */
export function setUpSignIn(onSignedIn) {
  const form = document.getElementById("signin-form");
  const email = document.getElementById("console-email");
  const password = document.getElementById("console-password");
  const code = document.getElementById("console-totp");
  const button = document.getElementById("console-signin");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    const values = { email: email.value.trim(), password: password.value, code: code.value.replace(/\s+/g, "") };
    if (!values.email || !values.password || !values.code) {
      showError(strings.signin.missing);
      return;
    }
    if (!CODE.test(values.code)) {
      showError(strings.signin.codeShape);
      code.focus();
      return;
    }
    button.disabled = true;
    const result = await call("POST", "/session", values);
    button.disabled = false;
    if (result.status === 200) {
      password.value = "";
      code.value = "";
      setMessage(document.getElementById("signin-notice"), "");
      await onSignedIn();
    } else {
      showError(messageFor(result, "signin"));
    }
  });
}
