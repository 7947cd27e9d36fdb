// Small DOM helpers shared by the journey's and the console's screens. Server data only ever
// becomes text (textContent through `h`), never markup.

/** `h("button", {type: "button", dataset: {testid: "x"}}, "text", child)`: properties are set as
 *  DOM properties, except `dataset`, `role` and dashed names (attributes); null/false are skipped. */
export function h(tag, properties = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(properties)) {
    if (value == null || value === false) continue;
    if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "role" || name.includes("-")) element.setAttribute(name, value);
    else element[name] = value;
  }
  element.append(...children.flat(Infinity).filter((child) => child != null && child !== false));
  return element;
}

/** A screen's heading; it takes focus when the screen opens (focusHeading). */
export function heading(text, id) {
  return h("h2", { id, tabIndex: -1, className: "screen-title" }, text);
}

export function focusHeading(container) {
  const target = container.querySelector(".screen-title");
  if (target) target.focus();
}

/** Says `text` through the page's polite live region (emptied first, so a repeat is read too). */
export function announce(text) {
  const region = document.getElementById("announcer");
  region.textContent = "";
  requestAnimationFrame(() => { region.textContent = text; });
}

/** Shows `text` in `element`, or hides it when there is none. */
export function setMessage(element, text) {
  element.textContent = text || "";
  element.hidden = !text;
}

/** An error paragraph, read out as soon as it changes. */
export function errorLine(properties = {}) {
  return h("p", { className: "error", role: "alert", hidden: true, ...properties });
}
