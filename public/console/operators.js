// The account's operators (administrators only): who they are, their role and status, when
// they last signed in; disabling one; and the operators' audit trail.
import { call, signedOut } from "./api.js";
import { errorLine, focusHeading, h, heading, setMessage } from "./dom.js";
import { label, roleName, timeElement } from "./format.js";
import { messageFor } from "./messages.js";
import { show, showPageError } from "./screens.js";
import { strings } from "./strings.js";

/** Operators who can still be disabled (a disabled one is already). */
const DISABLEABLE = ["active", "invited"];

function cell(columnLabel, ...content) {
  return h("td", { dataset: { label: columnLabel } }, content);
}

async function disable(ctx, operator, button, error) {
  if (!window.confirm(strings.operators.confirmDisable(String(operator.email || operator.id)))) return;
  setMessage(error, "");
  button.disabled = true;
  const result = await call("POST", `/operators/${encodeURIComponent(operator.id)}/disable`);
  button.disabled = false;
  if (signedOut(result)) return;
  if (result.status === 200) await renderOperators(ctx, { notice: strings.operators.disabled(String(operator.email || operator.id)) });
  else setMessage(error, messageFor(result, "load"));
}

function operatorRow(ctx, operator, error) {
  const columns = strings.operators.columns;
  const isMe = operator.id === ctx.me.id;
  let action = null;
  if (!isMe && DISABLEABLE.includes(operator.status)) {
    action = h("button", { type: "button", className: "secondary small danger", dataset: { testid: "operator-disable" } },
      strings.operators.disable, h("span", { className: "visually-hidden" }, ` ${operator.email || operator.id}`));
    action.addEventListener("click", () => disable(ctx, operator, action, error));
  }
  return h("tr", { dataset: { testid: "operator-row", operatorId: String(operator.id), status: String(operator.status || "") } },
    h("th", { scope: "row", dataset: { label: columns.email } },
      String(operator.email || ""), isMe ? h("span", { className: "you" }, ` (${strings.header.you})`) : null),
    cell(columns.role, roleName(operator.role)),
    cell(columns.status, h("span", { className: `badge operator-${String(operator.status).replace(/[^a-z_]/g, "")}` },
      label(strings.operatorStatuses, operator.status))),
    cell(columns.created, timeElement(operator.created_at)),
    cell(columns.lastSignIn, operator.last_sign_in_at ? timeElement(operator.last_sign_in_at) : h("span", { className: "muted" }, strings.operators.never)),
    cell(columns.actions, action || h("span", { className: "muted" }, strings.none)));
}

function operatorsTable(ctx, operators, error) {
  const columns = strings.operators.columns;
  const headers = [columns.email, columns.role, columns.status, columns.created, columns.lastSignIn, columns.actions];
  return h("table", { className: "cards operators-table" },
    h("caption", { className: "visually-hidden" }, strings.operators.caption),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, operators.map((operator) => operatorRow(ctx, operator, error))));
}

function eventsTable(events, operators) {
  const columns = strings.operators.eventColumns;
  const emailOf = (id) => {
    if (!id) return strings.operators.system;
    const found = operators.find((operator) => operator.id === id);
    return found && found.email ? found.email : String(id);
  };
  if (!events.length) return h("p", { className: "muted" }, strings.operators.noEvents);
  const headers = [columns.time, columns.event, columns.operator, columns.actor];
  return h("table", { className: "cards events-table" },
    h("caption", { className: "visually-hidden" }, strings.operators.eventsCaption),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, events.map((event) => h("tr", { dataset: { testid: "operator-event", type: String(event.type || "") } },
      h("th", { scope: "row", dataset: { label: columns.time } }, timeElement(event.created_at)),
      cell(columns.event, label(strings.operatorEvents, event.type)),
      cell(columns.operator, emailOf(event.operator_id)),
      cell(columns.actor, emailOf(event.actor_id))))));
}

function list(value) {
  return Array.isArray(value) ? value.filter((item) => item && typeof item === "object") : [];
}

/** Shows the operators page; `notice` says what just changed. */
export async function renderOperators(ctx, { notice } = {}) {
  const result = await call("GET", "/operators");
  if (signedOut(result)) return;
  if (result.status !== 200) {
    showPageError(messageFor(result, "load"));
    return;
  }
  const operators = list(result.body.data);
  const events = list(result.body.events);
  const error = errorLine({ id: "operators-error", dataset: { testid: "operators-error" } });
  const noticeLine = h("p", { className: "note", role: "status", tabIndex: -1, hidden: !notice }, notice || "");
  const section = document.getElementById("operators");
  section.replaceChildren(
    heading(strings.titles.operators, "operators-title"),
    h("p", { className: "muted" }, strings.operators.intro),
    noticeLine,
    error,
    operators.length ? operatorsTable(ctx, operators, error) : h("p", { className: "muted" }, strings.operators.none),
    h("section", { className: "panel", "aria-labelledby": "operator-events-title" },
      h("h3", { id: "operator-events-title" }, strings.operators.eventsTitle),
      eventsTable(events, operators)));
  show("operators");
  // After a change the table is new: focus goes to the line saying what changed.
  if (notice) noticeLine.focus();
  else focusHeading(section);
}
