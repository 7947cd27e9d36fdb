// The console's DOM helpers: the shared ones (../common/dom.js) and a few of its own.
export * from "../common/dom.js";
import { h, setMessage } from "../common/dom.js";

/** Marks `input` invalid with `text` in its error line `error` (or clears both when empty). */
export function setFieldError(input, error, text) {
  setMessage(error, text);
  if (text) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

/** A `<dl>` of [label, value, ddProperties?] rows; rows whose value is null are left out. */
export function definitionList(rows, properties = {}) {
  const items = rows
    .filter(([, value]) => value != null && value !== "")
    .map(([label, value, ddProperties]) => h("div", { className: "pair" }, h("dt", {}, label), h("dd", ddProperties || {}, value)));
  return h("dl", { className: "pairs", ...properties }, items);
}

/** `Object.hasOwn` for tables keyed by server codes (a code never reaches Object.prototype). */
export function own(table, key) {
  return table && typeof key === "string" && Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}
