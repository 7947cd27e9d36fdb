// Calls to the console API under /console/api. The session cookie travels by itself (same
// origin, Path=/console); the browser adds the Origin header the server checks on POSTs. Every
// call resolves to a result (see `result`), never rejects; status 0 means the network failed.

const BASE = "/console/api";

/** The code of a 401 when the console session is missing, idle too long, too old or disabled. */
export const SIGNIN_REQUIRED = "console_signin_required";

let signInRequired = () => {};

/** `handler` runs whenever a call finds the session gone (main.js shows the sign-in screen). */
export function whenSignInRequired(handler) {
  signInRequired = handler;
}

/** {status, body, code, errors}: `code` and `errors` are an RFC 9457 problem's (`code`
 *  undefined and `errors` empty otherwise); messages.js turns them into words. */
function result(status, body) {
  const parsed = body && typeof body === "object" ? body : {};
  return {
    status,
    body: parsed,
    code: typeof parsed.code === "string" ? parsed.code : undefined,
    errors: Array.isArray(parsed.errors) ? parsed.errors.filter((error) => error && typeof error === "object") : [],
  };
}

/** True when the result is the session-gone 401: the sign-in screen is already showing, so
 *  the caller does nothing more. */
export function signedOut(answer) {
  return answer.status === 401 && answer.code === SIGNIN_REQUIRED;
}

/** Sends `body` (if any) as JSON to `path` (under /console/api); resolves to a result. */
export async function call(method, path, body) {
  const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(BASE + path, options);
  } catch {
    return result(0);
  }
  let parsed = {};
  if (response.status !== 204) {
    try {
      parsed = await response.json();
    } catch {
      parsed = {};
    }
  }
  const answer = result(response.status, parsed);
  if (signedOut(answer)) signInRequired();
  return answer;
}

/** The path of one verification's API resource. */
export function verificationPath(id, rest = "") {
  return `/verifications/${encodeURIComponent(id)}${rest}`;
}
