// What each photo step asks for: which camera, how many photos (the step's `min`..`max`, the
// server's numbers, never the page's own), and what each photo is called.
import { strings } from "./strings.js";

export const PHOTO_STEPS = ["selfie", "premises_photos", "document"];

/** A whole number of photos of at least 1, or undefined. */
function whole(value) {
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

function label(type, index) {
  if (type === "selfie") return strings.stepNames.selfie;
  if (type === "document" && index < 2) return [strings.document.front, strings.document.back][index];
  return strings.capture.photo(index + 1);
}

/** The plan of a photo step from the journey state; null when the server gave no bounds. */
export function photoPlan(step) {
  const min = whole(step.min);
  const max = whole(step.max);
  if (!min || !max || max < min) return null;
  const intro = step.type === "premises_photos" ? strings.premises.intro(min, max) : strings[step.type].intro;
  return {
    facing: step.type === "selfie" ? "user" : "environment",
    min,
    max,
    labels: Array.from({ length: max }, (_, index) => label(step.type, index)),
    intro,
    removes: step.type === "premises_photos", // "Remove"; the others say "Retake"
    location: step.type === "premises_photos" && step.location === "ask",
  };
}
