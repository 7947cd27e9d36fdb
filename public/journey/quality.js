// The capture checks' verdict on the page: the server judges every photo at upload (its
// `quality`: passed, reasons); here each reason becomes an instruction in the user's language,
// and the step's mode says whether a failing photo may still be used. Nobody is locked out: from
// the step's `keep_anyway_from`-th upload on, a failing photo can always be kept.
import { h } from "./dom.js";
import { strings } from "./strings.js";

/** {passed, reasons} from the server's quality object; null when there is none. */
export function verdictOf(quality) {
  if (!quality || typeof quality !== "object") return null;
  const reasons = Array.isArray(quality.reasons) ? quality.reasons.filter((reason) => typeof reason === "string") : [];
  return { passed: quality.passed !== false && reasons.length === 0, reasons };
}

/** The instruction for one reason; a reason this page does not know yet gets the general one. */
export function instruction(reason) {
  const words = strings.quality.reasons;
  return Object.prototype.hasOwnProperty.call(words, reason) ? words[reason] : strings.quality.mustRetake;
}

/** The list under a photo: one `quality-message` per reason (data-reason = the server's code). */
export function reasonList(verdict) {
  if (!verdict || verdict.passed) return null;
  return h("ul", { className: "quality", dataset: { testid: "quality-messages" } },
    verdict.reasons.map((reason) => h("li", { dataset: { testid: "quality-message", reason } }, instruction(reason))));
}

/** The photos on the step that failed their checks (uploaded ones only: the server judged them). */
export function failing(shots) {
  return shots.filter((shot) => shot && shot.artifactId && shot.verdict && !shot.verdict.passed);
}

/** What a failing photo allows: `keep` (the user may use it anyway) and the step's advice. */
export function allowance(model) {
  const mayKeep = model.mode !== "require" || model.attempts >= model.keepFrom;
  const advice = model.mode !== "require" ? strings.quality.guide
    : mayKeep ? strings.quality.keepAnyway : strings.quality.retakeToContinue;
  return { keep: mayKeep, advice };
}
