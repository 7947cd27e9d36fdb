// The page's words for what went wrong, keyed by the server's stable codes: a failed call's
// problem `code` (RFC 9457; "offline" when there was no answer), a profile field error's
// `code`, and DigiLocker's setback (`?digilocker=`). The only place a code becomes words.
import { RESEND_COOLDOWN_SECONDS } from "./api.js";
import { strings } from "./strings.js";

/** Words any call shows for a code; "" where the page only shows where things now stand. */
const shared = {
  offline: () => strings.offline,
  verification_closed: () => "",
  step_completed: () => "",
  too_many_images: () => strings.capture.recount,
  step_incomplete: () => strings.capture.recount,
  steps_incomplete: () => strings.review.incomplete,
};

/** A call's own words for the codes it gives a meaning of its own, and for any other (`other`). */
const calls = {
  sendCode: {
    rate_limited: (result) => strings.waitBeforeResend(result.retryAfter || RESEND_COOLDOWN_SECONDS),
    invalid_request: () => strings.badNumber,
    other: () => strings.sendFailed,
  },
  verifyCode: { code_invalid: () => strings.badCode },
  load: { offline: () => strings.loadFailed, other: () => strings.loadFailed },
  upload: { payload_too_large: () => strings.capture.tooLarge, image_invalid: () => strings.capture.invalid },
  complete: { capture_quality: () => strings.quality.mustRetake },
  digilocker: { rate_limited: () => strings.digilocker.tooOften, other: () => strings.digilocker.startFailed },
  // Continuing on another device: the first device's link and its text message…
  continuation: { other: () => strings.continuation.createFailed },
  sms: {
    rate_limited: (result) => strings.continuation.smsWait(Number(result.retryAfter) || 60),
    other: () => strings.continuation.smsFailed,
  },
  // …and the phone opening the link and picking the number.
  open: { continuation_invalid: () => strings.continuation.used, other: () => strings.continuation.openFailed },
  match: {
    continuation_invalid: () => strings.continuation.used,
    continuation_failed: () => strings.continuation.wrongPick,
    other: () => strings.continuation.matchFailed,
  },
};

/** Codes after which the page reloads the journey's state (showing messageFor as its notice). */
const STALE = ["verification_closed", "step_completed", "too_many_images", "step_incomplete", "steps_incomplete"];

/** For each profile field, the `strings.profile` key of each field code (validation.js's keys
 *  where the meaning is the same). */
const fieldKeys = {
  full_name: { required: "nameMissing", name_invalid: "nameInvalid" },
  date_of_birth: { required: "dateMissing", date_invalid: "dateInvalid", date_in_future: "dateFuture", date_too_old: "dateTooOld" },
};

/** `table[key]` if the table itself has it (a code never reaches Object.prototype). */
function own(table, key) {
  return table && typeof key === "string" && Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

/** The code of a result: the problem's, or "offline" when the network failed. */
function codeOf(result) {
  return result.status === 0 ? "offline" : result.code;
}

/** The words for a failed call's result; `call` (sendCode, verifyCode, load, upload, complete,
 *  digilocker, continuation, sms, open, match) picks that call's own words first. */
export function messageFor(result, call) {
  const code = codeOf(result);
  const words = own(calls[call], code) || own(shared, code) || own(calls[call], "other");
  return words ? words(result) : strings.failed;
}

/** True when the result says the page's picture of the journey is out of date. */
export function isStale(result) {
  return STALE.includes(codeOf(result));
}

/** The words for one of the server's field errors ({field, code}), in the page's language. */
export function fieldMessageFor(error) {
  return strings.profile[own(own(fieldKeys, error.field), error.code) || "checkField"];
}

/** Why the user came back from DigiLocker without the documents (denied, failed, expired, missing). */
export function setbackMessage(setback) {
  const setbacks = strings.digilocker.setbacks;
  return own(setbacks, setback) || setbacks.failed;
}
