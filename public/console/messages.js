// The page's words for what went wrong, keyed by the server's stable problem codes ("offline"
// when there was no answer). The only place a code becomes words.
import { own } from "./dom.js";
import { strings } from "./strings.js";

/** Words any call shows for a code. */
const shared = {
  offline: () => strings.errors.offline,
  not_found: () => strings.errors.notFound,
  operator_role_required: () => strings.errors.adminOnly,
  setup_link_invalid: () => strings.setup.linkInvalid,
  approval_already_recorded: () => strings.decision.alreadyApproved,
  verification_not_submitted: () => strings.decision.notSubmitted,
  console_signin_required: () => strings.signin.sessionEnded,
};

/** A call's own words for the codes it gives a meaning of its own, and for any other (`other`). */
const calls = {
  signin: { console_signin_failed: () => strings.signin.failed },
  load: { other: () => strings.errors.loadFailed },
  queue: { invalid_request: () => strings.queue.badFilters, other: () => strings.errors.loadFailed },
  setupComplete: { code_invalid: () => strings.setup.codeInvalid, password_not_allowed: () => strings.setup.passwordRejected },
  decision: { invalid_request: () => strings.decision.invalid, operator_role_required: () => strings.decision.roleRequired },
  note: { invalid_request: () => strings.notes.invalid },
  resubmit: {
    invalid_request: () => strings.resubmit.invalid,
    verification_not_submitted: () => strings.resubmit.notSubmitted,
    resubmission_limit_reached: () => strings.resubmit.limitReached,
    operator_role_required: () => strings.resubmit.roleRequired,
  },
};

function codeOf(result) {
  return result.status === 0 ? "offline" : result.code;
}

/** The words for a failed call's result; `call` picks that call's own words first. */
export function messageFor(result, call) {
  const code = codeOf(result);
  const words = own(calls[call], code) || own(shared, code) || own(calls[call], "other");
  return words ? words(result) : strings.errors.failed;
}

/** The page's words for a setup field error ({field, message}); the server writes English
 *  prose, so its known meanings are matched and said in the page's language. */
export function setupFieldMessage(error) {
  const message = String(error.message || "").toLowerCase();
  if (error.field === "code") return strings.setup.codeInvalid;
  if (error.field === "password") {
    if (/\b12\b|at least|short/.test(message)) return strings.setup.passwordTooShort;
    if (/common|guess|breach/.test(message)) return strings.setup.passwordCommon;
    return strings.setup.passwordRejected;
  }
  return strings.errors.checkField;
}
