// Sign-in: the handoff exchange, and the mobile number + SMS code fallback.
import { call } from "./api.js";
import { strings } from "./strings.js";

/** Trades a handoff secret for a session cookie. Failure is silent: the user signs in instead. */
export async function exchangeHandoff(secret) {
  const result = await call("POST", "/session", { handoff: secret });
  return result.status === 200;
}

function showError(message) {
  const element = document.getElementById("signin-error");
  element.textContent = message || "";
  element.hidden = !message;
}

function busy(button, isBusy) {
  button.disabled = isBusy;
}

/** Seconds before "send again" is offered: the server's resend cooldown. */
const resendAfterSeconds = 30;

/** Shows an error for a failed request for a code. */
function showSendError(result) {
  if (result.status === 429) {
    showError(strings.waitBeforeResend(result.retryAfter || resendAfterSeconds));
  } else if (result.status === 422) {
    showError(strings.badNumber);
  } else if (result.status === 0) {
    showError(strings.offline);
  } else {
    showError(strings.sendFailed);
  }
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
    resendTimer = setTimeout(() => { resend.hidden = false; }, resendAfterSeconds * 1000);
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
      showSendError(result);
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
      showSendError(result);
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
    if (result.status === 200) {
      await onSignedIn();
    } else if (result.status === 0) {
      showError(strings.offline);
    } else {
      showError(strings.badCode);
    }
  });

  document.getElementById("otp-back").addEventListener("click", () => {
    showError("");
    show("signin");
  });
}
