// A photo step's evidence: every photo the user took for it, in upload order, so a photo a retake
// replaced stands beside the retake that followed it. Beside each photo: when it was taken, what
// the capture checks found (each reason in words, or that it passed), whether the user kept it
// anyway, the scores, where it was taken (premises photos, when the step asked) and, on a selfie,
// the face box drawn over the face.
import { takenLine, thumbButton } from "./artifacts.js";
import { h } from "./dom.js";
import { faceBox } from "./facebox.js";
import { label } from "./format.js";
import { strings } from "./strings.js";

let numbers;

function number(value, digits) {
  numbers ??= new Map();
  if (!numbers.has(digits)) numbers.set(digits, new Intl.NumberFormat(strings.locale, { maximumFractionDigits: digits }));
  return numbers.get(digits).format(value);
}

function quality(image) {
  return image.quality && typeof image.quality === "object" ? image.quality : null;
}

/** The checks' verdict: "Passed the checks", or each reason as words. */
function verdict(found) {
  const words = strings.captures;
  if (found.passed === true) {
    return h("p", { className: "verdict verdict-passed", dataset: { testid: "capture-reasons", passed: "true" } }, words.passed);
  }
  const reasons = Array.isArray(found.reasons) ? found.reasons.map(String) : [];
  return h("div", { className: "verdict verdict-failed", dataset: { testid: "capture-reasons", passed: "false" } },
    h("p", { className: "verdict-title" }, words.failed),
    h("ul", {}, reasons.map((reason) => h("li", { dataset: { reason } }, label(words.reasons, reason)))));
}

/** Brightness, sharpness, faces (selfies) and which attempt it was. */
function scoresLine(found, step) {
  const words = strings.captures.scores;
  const scores = found.scores && typeof found.scores === "object" ? found.scores : {};
  const parts = [];
  if (Number.isFinite(Number(found.attempt))) parts.push(words.attempt(Number(found.attempt)));
  if (scores.brightness != null && Number.isFinite(Number(scores.brightness))) {
    parts.push(words.brightness(number(Number(scores.brightness) * 100, 0)));
  }
  if (scores.sharpness != null && Number.isFinite(Number(scores.sharpness))) parts.push(words.sharpness(number(Number(scores.sharpness), 1)));
  if (step.type === "selfie" && Number.isFinite(Number(scores.faces))) parts.push(words.faces(Number(scores.faces)));
  return parts.length ? h("p", { className: "scores muted" }, parts.join(" · ")) : null;
}

/** Where it was taken, as text (no map: nothing leaves the console). */
function locationLine(image) {
  const place = image.location && typeof image.location === "object" ? image.location : null;
  if (!place) return null;
  const [latitude, longitude, accuracy] = [place.latitude, place.longitude, place.accuracy_m].map(Number);
  if (![latitude, longitude].every(Number.isFinite)) return null;
  return h("p", { className: "location", dataset: { testid: "capture-location" } },
    strings.captures.location(latitude.toFixed(6), longitude.toFixed(6), Number.isFinite(accuracy) ? number(Math.round(accuracy), 0) : ""));
}

function details(image, step) {
  const found = quality(image);
  const words = strings.captures;
  return [
    takenLine(image),
    found ? verdict(found) : null,
    found && found.accepted_by_user === true ? h("p", { className: "kept", dataset: { testid: "capture-kept" } }, words.keptAnyway) : null,
    found ? scoresLine(found, step) : null,
    step.type === "selfie" && found && found.face && faceBox(image) ? h("p", { className: "muted face-note" }, words.faceOutlined) : null,
    locationLine(image),
  ];
}

function captureItem(image, step, name, index, total) {
  const words = strings.captures;
  const superseded = image.superseded === true;
  const text = strings.detail.photoAlt(name, index + 1, total) + (superseded ? ` (${words.superseded})` : "");
  const overlay = step.type === "selfie" ? faceBox(image) : null;
  const tag = superseded
    ? h("p", { className: "capture-tag tag-superseded", dataset: { testid: "capture-superseded" } }, words.superseded)
    : h("p", { className: "capture-tag tag-current" }, words.current);
  return h("li", {
    className: superseded ? "capture superseded" : "capture",
    dataset: { testid: "capture", artifactId: String(image.artifact_id || ""), superseded: String(superseded) },
  },
  h("figure", {}, tag, thumbButton(image, text, overlay), h("figcaption", {}, details(image, step))));
}

/** The photos of `step` (called `name`): `images` from the console's detail, oldest first. */
export function captureList(images, step, name) {
  const superseded = images.filter((image) => image.superseded === true).length;
  return [
    superseded ? h("p", { className: "hint" }, strings.captures.order) : null,
    h("ul", { className: "captures" }, images.map((image, index) => captureItem(image, step, name, index, images.length))),
  ];
}
