// What each photo step asks for: which camera, how many photos (the step's own min..max when
// the server gives them), and what each photo is called.
import { strings } from "./strings.js";

export const PHOTO_STEPS = ["selfie", "premises_photos", "document"];
const COUNTS = { selfie: [1, 1], document: [2, 2], premises_photos: [1, 1] };

function whole(value, fallback) {
  const number = Number(value);
  return Number.isInteger(number) && number >= 1 ? number : fallback;
}

function label(type, index) {
  if (type === "selfie") return strings.stepNames.selfie;
  if (type === "document" && index < 2) return [strings.document.front, strings.document.back][index];
  return strings.capture.photo(index + 1);
}

export function photoPlan(step) {
  const min = whole(step.min, COUNTS[step.type][0]);
  const max = Math.max(min, whole(step.max, COUNTS[step.type][1]));
  const intro = step.type === "premises_photos" ? strings.premises.intro(min, max) : strings[step.type].intro;
  return {
    facing: step.type === "selfie" ? "user" : "environment",
    min,
    max,
    labels: Array.from({ length: max }, (_, index) => label(step.type, index)),
    intro,
    removes: step.type === "premises_photos", // "Remove"; the others say "Retake"
  };
}
