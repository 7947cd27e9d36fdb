// The page's words for the server's values: times, status names, reason codes, roles, steps.
import { h, own } from "./dom.js";
import { strings } from "./strings.js";

let dateTime;

/** A server time (RFC 3339) as the page's language writes it, in the browser's time zone. */
export function formatTime(value) {
  const date = new Date(value);
  if (!value || Number.isNaN(date.getTime())) return String(value ?? "");
  dateTime ??= new Intl.DateTimeFormat(strings.locale, { dateStyle: "medium", timeStyle: "short" });
  return dateTime.format(date);
}

/** Every control, invisible or direction-changing character (U+202E, U+200B, U+2066, …) but tab
 *  and newline: what someone could hide in a value or use to reorder the text it is shown in. */
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `value` with each hidden character written out as `<U+202E>`, so the operator sees it. */
export function visibleText(value) {
  return String(value ?? "").replace(HIDDEN, (character) =>
    `<U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}>`);
}

/** Text that came from outside the console (a user id, metadata, profile data, a note): in its
 *  own `<bdi>`, so its direction cannot reorder the text around it, with its hidden characters
 *  shown (`visibleText`), so it cannot reorder or hide its own. */
export function userText(value, properties = {}) {
  return h("bdi", { className: "user-text", ...properties }, visibleText(value));
}

/** A `<time>` for `value`, or a muted dash when there is none. */
export function timeElement(value) {
  if (!value) return h("span", { className: "muted" }, strings.none);
  return h("time", { dateTime: value }, formatTime(value));
}

/** `table[code]`, else the code itself (a value this page has no words for yet). */
export function label(table, code) {
  return own(table, code) ?? String(code ?? "");
}

export const statusName = (status) => label(strings.statuses, status);
export const reasonName = (reason) => label(strings.reasons, reason);
export const roleName = (role) => label(strings.roles, role);

/** A status as a badge (its colour from the class; the words are the status name). */
export function statusBadge(status, properties = {}) {
  return h("span", { className: `badge status-${String(status).replace(/[^a-z_]/g, "")}`, ...properties }, statusName(status));
}

/** A step's name: its type's words, with its id when the workflow named it differently. */
export function stepName(step) {
  const name = label(strings.stepNames, step.type);
  return step.id && step.id !== step.type ? `${name} (${step.id})` : name;
}
