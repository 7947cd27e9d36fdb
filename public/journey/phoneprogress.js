// The computer's screen while the phone does the steps (`body[data-state=elsewhere]`): each
// step with whether the phone has done it, changed in place as the follow loop hears of it.
import { errorLine, h, heading } from "./dom.js";
import { strings } from "./strings.js";

function stepLine(name, status) {
  const done = status === "completed";
  return [`${name}: `, h("span", { className: done ? "state" : "state muted" }, strings.stepStates[done ? "completed" : "pending"])];
}

/** Fills the `elsewhere` section; `hereButton(errorLine)` builds "Continue on this device
 *  instead". Returns the list for updateProgress. */
export function buildProgress(hereButton) {
  const text = strings.continuation;
  const section = document.getElementById("elsewhere");
  const error = errorLine();
  const list = {
    items: new Map(),
    count: h("p", { className: "progress" }),
    element: h("ul", { className: "checklist", "aria-live": "polite", "aria-label": text.stepsLabel }),
  };
  section.replaceChildren(heading(text.elsewhereTitle, "elsewhere-title"), h("p", {}, text.elsewhereIntro),
    list.count, list.element, error, hereButton(error));
  return list;
}

/** The steps (`[{id, status}]`) and how far the phone got, changed in place (the list is a live
 *  region); `known` are the journey's steps as this page has them (for their types' names). */
export function updateProgress(list, steps, known) {
  const types = new Map(known.map((step) => [step.id, step.type]));
  if (!list.items.size) {
    for (const step of steps) {
      const item = h("li", { dataset: { testid: "elsewhere-step", step: step.id } });
      list.items.set(step.id, item);
      list.element.append(item);
    }
  }
  for (const step of steps) {
    const item = list.items.get(step.id);
    if (!item || item.dataset.status === step.status) continue;
    item.dataset.status = step.status;
    item.className = step.status === "completed" ? "completed" : "";
    item.replaceChildren(...stepLine(strings.stepNames[types.get(step.id)] || step.id, step.status));
  }
  const done = steps.filter((step) => step.status === "completed").length;
  list.count.textContent = strings.continuation.elsewhereCount(done, steps.length);
}
