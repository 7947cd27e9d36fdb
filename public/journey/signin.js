// Sign-in: the handoff exchange, and the mobile number + SMS code fallback.
import { call, RESEND_COOLDOWN_SECONDS } from "./api.js";
import { setMessage } from "./dom.js";
import { messageFor } from "./messages.js";
import { strings } from "./strings.js";

/** Trades a handoff secret for a session cookie; resolves to the call's result. Failure is
 *  silent: the user signs in instead. A handoff the customer minted for its own app to join the
 *  computer's continuation answers `{"status": "match", "matching", …}` and a claim cookie
 *  instead: the number comes first (match.js `hasPrompt`, `showOpened`). */
export function exchangeHandoff(secret) {
  return call("POST", "/session", { handoff: secret });
}

function showError(message) {
  setMessage(document.getElementById("signin-error"), message);
}

function busy(button, isBusy) {
  button.disabled = isBusy;
}

/** Wires the two sign-in forms; `onSignedIn` runs after a successful code. */
export function setUpSignIn(show, onSignedIn) {
  const signinForm = document.getElementById("signin-form");
  const otpForm = document.getElementById("otp-form");
  const send = document.getElementById("signin-send");
  const verify = document.getElementById("signin-verify");
  const resend = document.getElementById("otp-resend");
  const resent = document.getElementById("otp-resent");
  let resendTimer;

  // The server answers the same whether or not a code could be sent (so the answer says nothing
  // about the number), so a code that never came is offered again after the cooldown.
  function offerResendLater() {
    clearTimeout(resendTimer);
    resend.hidden = true;
    resendTimer = setTimeout(() => { resend.hidden = false; }, RESEND_COOLDOWN_SECONDS * 1000);
  }

  resend.addEventListener("click", async () => {
    showError("");
    busy(resend, true);
    const result = await call("POST", "/otp", { mobile: document.getElementById("signin-mobile").value.trim() });
    busy(resend, false);
    if (result.status === 202) {
      resent.hidden = false;
      offerResendLater();
    } else {
      showError(messageFor(result, "sendCode"));
    }
  });

  signinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    const mobile = document.getElementById("signin-mobile").value.trim();
    busy(send, true);
    const result = await call("POST", "/otp", { mobile });
    busy(send, false);
    if (result.status === 202) {
      resent.hidden = true;
      show("otp");
      offerResendLater();
      document.getElementById("signin-code").focus();
    } else {
      showError(messageFor(result, "sendCode"));
    }
  });

  otpForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    const code = document.getElementById("signin-code").value.trim();
    if (!/^[0-9]{6}$/.test(code)) {
      showError(strings.codeShape);
      return;
    }
    busy(verify, true);
    const result = await call("POST", "/otp/verify", { code });
    busy(verify, false);
    if (result.status === 200) await onSignedIn();
    else showError(messageFor(result, "verifyCode"));
  });

  document.getElementById("otp-back").addEventListener("click", () => {
    showError("");
    show("signin");
  });
}
