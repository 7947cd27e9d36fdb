// The review queue: counts per status, filters (status, workflow, user id) kept in the address
// so a reload or a shared link shows the same list, and one page of verifications at a time,
// oldest first.
import { call, signedOut } from "./api.js";
import { focusHeading, h, heading } from "./dom.js";
import { formatTime, label, statusBadge, statusName, timeElement, userText } from "./format.js";
import { consoleHref, rememberQueueFilters, verificationHref } from "./links.js";
import { messageFor } from "./messages.js";
import { show, showPageError } from "./screens.js";
import { strings, updateLanguageSwitch } from "./strings.js";

// A verification sent back for a retake waits on the user, not on a reviewer: it has its own
// count and filter beside `submitted`, and comes back to `submitted` when the user sends it again.
export const STATUSES = ["created", "in_progress", "submitted", "resubmission_requested", "approved", "rejected", "canceled", "expired"];
const DEFAULT_STATUS = "submitted";
const PAGE_SIZE = 20;

/** The filters and page the address asks for. */
function filtersFromAddress() {
  const query = new URLSearchParams(location.search);
  return {
    status: query.get("status") || DEFAULT_STATUS,
    workflow: query.get("workflow") || "",
    user_id: (query.get("user_id") || "").trim(),
    starting_after: query.get("starting_after") || "",
  };
}

function apiQuery(filters) {
  const query = new URLSearchParams({ status: filters.status, limit: String(PAGE_SIZE) });
  if (filters.workflow) query.set("workflow", filters.workflow);
  if (filters.user_id) query.set("user_id", filters.user_id);
  if (filters.starting_after) query.set("starting_after", filters.starting_after);
  return query.toString();
}

/** Shows `filters` in the address (a new history entry) and the list they select. */
function go(ctx, filters, focusResults) {
  history.pushState(null, "", consoleHref("/console", filters));
  updateLanguageSwitch();
  return renderQueue(ctx, { focusResults });
}

/** The tabs' counts; a count above `limit` (the server counts that far only) shows as "limit+". */
function countsList(counts, limit, filters) {
  const items = STATUSES.map((status) => {
    const number = Number.isFinite(Number(counts[status])) ? Number(counts[status]) : 0;
    const count = Number.isFinite(limit) && number > limit ? strings.queue.countAbove(limit) : number;
    const href = consoleHref("/console", { status, workflow: filters.workflow, user_id: filters.user_id });
    return h("li", {},
      h("a", { href, className: "count", "aria-current": filters.status === status ? "true" : null },
        h("span", { className: "count-label" }, statusName(status)),
        h("span", { className: "count-number", dataset: { testid: "queue-count", status } }, String(count))));
  });
  return h("ul", { className: "counts", "aria-label": strings.queue.countsLabel }, items);
}

function select(id, testid, labelText, options, value) {
  const element = h("select", { id, name: id, dataset: { testid } },
    options.map(([optionValue, text]) => h("option", { value: optionValue, selected: optionValue === value }, text)));
  return h("div", { className: "filter" }, h("label", { htmlFor: id }, labelText), element);
}

function filterForm(ctx, filters, workflows) {
  const statusOptions = [["all", strings.queue.allStatuses], ...STATUSES.map((status) => [status, statusName(status)])];
  const names = workflows.includes(filters.workflow) || !filters.workflow ? workflows : [...workflows, filters.workflow];
  const workflowOptions = [["", strings.queue.allWorkflows], ...names.map((name) => [name, name])];
  const search = h("input", {
    id: "queue-search", name: "user_id", type: "search", value: filters.user_id, dataset: { testid: "queue-search" },
    autocomplete: "off",
  });
  const form = h("form", { className: "filters", role: "search", "aria-label": strings.queue.filtersLabel, noValidate: true },
    select("queue-filter-status", "queue-filter-status", strings.queue.statusLabel, statusOptions, filters.status),
    select("queue-filter-workflow", "queue-filter-workflow", strings.queue.workflowLabel, workflowOptions, filters.workflow),
    h("div", { className: "filter" }, h("label", { htmlFor: "queue-search" }, strings.queue.searchLabel), search),
    h("div", { className: "filter-actions" },
      h("button", { type: "submit", dataset: { testid: "queue-apply" } }, strings.queue.apply),
      h("a", { href: consoleHref("/console"), className: "reset" }, strings.queue.reset)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    go(ctx, {
      status: form.elements["queue-filter-status"].value,
      workflow: form.elements["queue-filter-workflow"].value,
      user_id: search.value.trim(),
    }, true);
  });
  return form;
}

function approvalsText(row) {
  const required = Number(row.approvals_required) || 1;
  if (required < 2) return strings.none;
  const count = Array.isArray(row.approvals) ? row.approvals.length : Number(row.approvals) || 0;
  return `${count}/${required}`;
}

function submittedCell(row) {
  if (row.submitted_at) return timeElement(row.submitted_at);
  return h("span", { className: "muted" }, strings.queue.createdAt(formatTime(row.created_at)));
}

function cell(columnLabel, ...content) {
  return h("td", { dataset: { label: columnLabel } }, content);
}

/** A badge per flag (e.g. "Reported: not me"), beside the status. */
function flagBadges(flags) {
  if (!Array.isArray(flags)) return null;
  return flags.filter((flag) => typeof flag === "string").map((flag) =>
    h("span", { className: "flag", dataset: { testid: "queue-flag", flag } }, label(strings.flags, flag)));
}

function queueRow(row) {
  const columns = strings.queue.columns;
  const who = row.user_id == null ? strings.redacted : userText(row.user_id);
  return h("tr", { dataset: { testid: "queue-row", verificationId: row.id } },
    h("th", { scope: "row", dataset: { label: columns.user } },
      h("a", { href: verificationHref(row.id), className: "row-link" }, who),
      h("span", { className: "id" }, row.id)),
    cell(columns.workflow, userText(row.workflow)),
    cell(columns.status, statusBadge(row.status), flagBadges(row.flags)),
    cell(columns.submitted, submittedCell(row)),
    cell(columns.approvals, approvalsText(row)));
}

function queueTable(rows) {
  const columns = strings.queue.columns;
  const headers = [columns.user, columns.workflow, columns.status, columns.submitted, columns.approvals];
  return h("table", { className: "cards queue-table" },
    h("caption", { className: "visually-hidden" }, strings.queue.caption),
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, rows.map(queueRow)));
}

function emptyText(filters) {
  const filtered = filters.status !== DEFAULT_STATUS || filters.workflow || filters.user_id;
  return filtered ? strings.queue.emptyFiltered : strings.queue.empty;
}

function paging(ctx, filters, rows, hasMore) {
  const controls = [];
  if (filters.starting_after) {
    controls.push(h("a", { href: consoleHref("/console", { ...filters, starting_after: "" }), className: "first-page" },
      strings.queue.firstPage));
  }
  if (hasMore && rows.length) {
    const next = h("button", { type: "button", className: "secondary", dataset: { testid: "queue-next" } }, strings.queue.next);
    next.addEventListener("click", () => go(ctx, { ...filters, starting_after: rows[rows.length - 1].id }, true));
    controls.push(next);
  }
  return controls.length ? h("div", { className: "paging" }, controls) : null;
}

/** Shows the queue for the address's filters; `focusResults` after the filters or page changed. */
export async function renderQueue(ctx, { focusResults } = {}) {
  const filters = filtersFromAddress();
  rememberQueueFilters(filters);
  const result = await call("GET", `/queue?${apiQuery(filters)}`);
  if (signedOut(result)) return;
  if (result.status !== 200 || !Array.isArray(result.body.data)) {
    showPageError(messageFor(result, "queue"));
    return;
  }
  const body = result.body;
  const rows = body.data.filter((row) => row && typeof row.id === "string");
  const workflows = Array.isArray(body.workflows) ? body.workflows.map(String) : [];
  const resultsTitle = h("h3", { id: "queue-results-title", tabIndex: -1 }, strings.queue.resultsTitle(statusName(filters.status), filters.status === "all"));
  const results = rows.length
    ? queueTable(rows)
    : h("p", { className: "empty", dataset: { testid: "queue-empty" } }, emptyText(filters));
  const section = document.getElementById("queue");
  section.replaceChildren(
    heading(strings.titles.queue, "queue-title"),
    countsList(body.counts && typeof body.counts === "object" ? body.counts : {}, Number(body.counts_limit), filters),
    filterForm(ctx, filters, workflows),
    h("section", { className: "results", "aria-labelledby": "queue-results-title" },
      resultsTitle,
      h("p", { className: "muted" }, strings.queue.order),
      results,
      paging(ctx, filters, rows, body.has_more === true)),
  );
  show("queue");
  if (focusResults) resultsTitle.focus();
  else focusHeading(section);
}
