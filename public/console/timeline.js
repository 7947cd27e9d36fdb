// The event timeline (oldest first): each event's words, time, who did it and what it says.
import { h, own } from "./dom.js";
import { formatTime, label, reasonName, stepName } from "./format.js";
import { strings } from "./strings.js";

/** Who acted: "Operator a@x.in", "API key key_…", "The user", "System". */
export function actorText(actor) {
  if (!actor || typeof actor !== "object") return strings.actors.unknown;
  const who = actor.email || actor.id || "";
  const words = own(strings.actors, actor.type);
  if (typeof words === "function") return words(who);
  return [label(strings.actors, actor.type), who].filter(Boolean).join(" ");
}

/** The event's words; a review note says which kind it is (opened, note, first approval). */
function title(event) {
  const data = event.data && typeof event.data === "object" ? event.data : {};
  if (event.type === "verification.review_note") {
    const kind = own(strings.reviewKinds, data.kind);
    if (typeof kind === "function") return kind(data);
    if (kind) return kind;
  }
  return label(strings.events, event.type);
}

function scalar(value) {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** The event data's details worth a line: its step (or steps), reason, sign-in method, last
 *  step, and any other plain value (events carry no personal data). `status` and `kind` are in
 *  the title. */
function details(event, steps) {
  const data = event.data && typeof event.data === "object" ? event.data : {};
  const named = (id) => {
    const step = steps.find((candidate) => candidate.id === id);
    return step ? stepName(step) : String(id);
  };
  const said = strings.eventData;
  const parts = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === "steps" && Array.isArray(value)) {
      parts.push(said.steps(value.map(named).join(", ")));
      continue;
    }
    if (["status", "kind", "approvals", "approvals_required"].includes(key) || value == null || !scalar(value)) continue;
    if (key === "step" || key === "last_step") parts.push(said[key](named(value)));
    else if (key === "reason" && event.type === "verification.expired") parts.push(said.reason(label(strings.expiredReasons, value)));
    else if (key === "reason" && event.type === "verification.resubmission_requested") {
      parts.push(said.reason(label(strings.retakeReasons, value)));
    }
    else if (key === "reason") parts.push(said.reason(reasonName(value)));
    else if (key === "method") parts.push(said.method(label(strings.signinMethods, value)));
    else parts.push(`${key}: ${value}`);
  }
  return parts;
}

function eventItem(event, steps) {
  const parts = details(event, steps);
  return h("li", { dataset: { testid: "timeline-event", type: String(event.type || "") } },
    h("p", { className: "event-title" },
      h("strong", {}, title(event)), " ",
      event.created_at ? h("time", { dateTime: event.created_at, className: "muted" }, formatTime(event.created_at)) : null),
    h("p", { className: "event-actor" }, actorText(event.actor)),
    parts.length ? h("p", { className: "event-data" }, parts.join(" · ")) : null);
}

/** The timeline of `events`; `steps` name the steps events mention. */
export function timeline(events, steps) {
  if (!events.length) return h("p", { className: "muted" }, strings.detail.noEvents);
  return h("ol", { className: "timeline" }, events.map((event) => eventItem(event, steps)));
}
