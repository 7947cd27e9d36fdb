// The journey analytics page (/console/analytics): where users drop off. The date range and
// workflow are kept in the address; the funnel, the steps, the retake reasons and the device
// classes are each drawn as a chart (charts.js) with the same numbers in a real table.
import { call, signedOut } from "./api.js";
import { barChart } from "./charts.js";
import { focusHeading, h, heading, own, setMessage } from "./dom.js";
import { consoleHref } from "./links.js";
import { messageFor } from "./messages.js";
import { show, showPageError } from "./screens.js";
import { strings, updateLanguageSwitch } from "./strings.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The last answer shown, so a change of the window's width redraws the charts to fit it. */
let shown = null;

/** The width the charts get: the page's, at most 640 px (drawn at 1:1, so text keeps its size). */
function chartWidth() {
  const section = document.getElementById("analytics");
  return Math.max(280, Math.min(640, Math.floor((section && section.clientWidth) || 640)));
}

function filtersFromAddress() {
  const query = new URLSearchParams(location.search);
  const pick = (name) => (DATE.test(query.get(name) || "") ? query.get(name) : "");
  return { from: pick("from"), to: pick("to"), workflow: query.get("workflow") || "" };
}

function apiQuery(filters) {
  const query = new URLSearchParams();
  for (const name of ["workflow", "from", "to"]) if (filters[name]) query.set(name, filters[name]);
  return query.toString();
}

function numberText(value) {
  return new Intl.NumberFormat(strings.locale).format(value);
}

function percentText(value) {
  return new Intl.NumberFormat(strings.locale, { style: "percent", maximumFractionDigits: 1 }).format(value);
}

function durationText(seconds) {
  if (seconds == null) return strings.none;
  const whole = Math.round(Number(seconds));
  return whole < 60 ? strings.analytics.seconds(whole) : strings.analytics.minutes(Math.floor(whole / 60), whole % 60);
}

function stepText(step) {
  return own(strings.stepNames, step) || step;
}

function reasonText(reason) {
  return own(strings.captures.reasons, reason) || reason;
}

function table(testid, caption, columns, rows) {
  return h("table", { className: "data analytics-table", dataset: { testid } },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, columns.map((column, index) => h("th", { scope: "col", className: index ? "number" : null }, column)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell, index) => (index
      ? h("td", { className: "number", dataset: { label: columns[index] } }, cell)
      : h("th", { scope: "row" }, cell)))))));
}

function legend(entries) {
  return h("ul", { className: "chart-legend" },
    entries.map(([series, text]) => h("li", {}, h("span", { className: `swatch swatch-${series}`, "aria-hidden": "true" }), text)));
}

function part(id, title, intro, ...content) {
  return h("section", { className: "analytics-part", "aria-labelledby": id },
    h("h3", { id }, title), intro ? h("p", { className: "muted" }, intro) : null, ...content);
}

function funnelPart(body) {
  const stages = body.stages.filter((stage) => stage && typeof stage.stage === "string");
  const names = strings.analytics.stages;
  const rows = stages.map((stage) => ({
    label: own(names, stage.stage) || stage.stage, data: { stage: stage.stage },
    values: [{ series: "stage", value: Number(stage.count) || 0, conversion: Number(stage.conversion) || 0 }],
  }));
  const chart = barChart({
    rows, testid: "analytics-funnel-chart", width: chartWidth(),
    format: (entry) => `${numberText(entry.value)} (${percentText(entry.conversion)})`,
  });
  const columns = strings.analytics.funnelColumns;
  return part("analytics-funnel-title", strings.analytics.funnelTitle, strings.analytics.funnelIntro,
    h("figure", { className: "chart-figure", dataset: { testid: "analytics-funnel" } }, chart),
    table("analytics-funnel-table", strings.analytics.funnelCaption(body.from, body.to), [columns.stage, columns.count, columns.conversion],
      stages.map((stage) => [own(names, stage.stage) || stage.stage, numberText(Number(stage.count) || 0),
        percentText(Number(stage.conversion) || 0)])));
}

function stepsPart(body) {
  const steps = body.steps.filter((step) => step && typeof step.step === "string");
  const columns = strings.analytics.stepColumns;
  if (!steps.length) return part("analytics-steps-title", strings.analytics.stepsTitle, null, h("p", { className: "empty" }, strings.analytics.noSteps));
  const chart = barChart({
    testid: "analytics-steps-chart", width: chartWidth(), format: (entry) => numberText(entry.value),
    rows: steps.map((step) => ({
      label: stepText(step.step), data: { step: step.step },
      values: [{ series: "viewed", value: Number(step.viewed) || 0 }, { series: "completed", value: Number(step.completed) || 0 }],
    })),
  });
  return part("analytics-steps-title", strings.analytics.stepsTitle, strings.analytics.stepsIntro,
    h("figure", { className: "chart-figure", dataset: { testid: "analytics-steps" } },
      legend([["viewed", columns.viewed], ["completed", columns.completed]]), chart),
    table("analytics-steps-table", strings.analytics.stepsCaption, [columns.step, columns.viewed, columns.completed, columns.median],
      steps.map((step) => [stepText(step.step), numberText(Number(step.viewed) || 0), numberText(Number(step.completed) || 0),
        durationText(step.median_seconds)])));
}

function retakesPart(body) {
  const retakes = body.retakes.filter((retake) => retake && typeof retake.reason === "string");
  const columns = strings.analytics.retakeColumns;
  const content = retakes.length
    ? [h("figure", { className: "chart-figure", dataset: { testid: "analytics-retakes" } },
      barChart({
        testid: "analytics-retakes-chart", width: chartWidth(), format: (entry) => numberText(entry.value),
        rows: retakes.map((retake) => ({
          label: `${stepText(retake.step)}: ${reasonText(retake.reason)}`, data: { step: retake.step, reason: retake.reason },
          values: [{ series: "retake", value: Number(retake.count) || 0 }],
        })),
      })),
    table("analytics-retakes-table", strings.analytics.retakesCaption, [columns.reason, columns.count],
      retakes.map((retake) => [`${stepText(retake.step)}: ${reasonText(retake.reason)}`, numberText(Number(retake.count) || 0)]))]
    : [h("p", { className: "empty", dataset: { testid: "analytics-retakes" } }, strings.analytics.noRetakes)];
  return part("analytics-retakes-title", strings.analytics.retakesTitle, strings.analytics.retakesIntro, ...content);
}

function devicesPart(body) {
  const devices = body.devices.filter((device) => device && typeof device.class === "string");
  const columns = strings.analytics.deviceColumns;
  const names = strings.analytics.devices;
  if (!devices.length) return part("analytics-devices-title", strings.analytics.devicesTitle, null, h("p", { className: "empty" }, strings.analytics.noDevices));
  return part("analytics-devices-title", strings.analytics.devicesTitle, strings.analytics.devicesIntro,
    h("figure", { className: "chart-figure", dataset: { testid: "analytics-devices" } },
      legend([["opened", columns.opened], ["submitted", columns.submitted]]),
      barChart({
        testid: "analytics-devices-chart", width: chartWidth(), format: (entry) => numberText(entry.value),
        rows: devices.map((device) => ({
          label: own(names, device.class) || device.class, data: { class: device.class },
          values: [{ series: "opened", value: Number(device.opened) || 0 }, { series: "submitted", value: Number(device.submitted) || 0 }],
        })),
      })),
    table("analytics-devices-table", strings.analytics.devicesCaption, [columns.device, columns.opened, columns.submitted],
      devices.map((device) => [own(names, device.class) || device.class, numberText(Number(device.opened) || 0),
        numberText(Number(device.submitted) || 0)])));
}

function field(id, labelText, control) {
  return h("div", { className: "filter" }, h("label", { htmlFor: id }, labelText), control);
}

function filterForm(ctx, filters, body, workflows) {
  const from = h("input", { id: "analytics-from", name: "from", type: "date", value: filters.from || body.from || "",
    dataset: { testid: "analytics-from" }, required: true });
  const to = h("input", { id: "analytics-to", name: "to", type: "date", value: filters.to || body.to || "",
    dataset: { testid: "analytics-to" }, required: true });
  const names = workflows.includes(filters.workflow) || !filters.workflow ? workflows : [...workflows, filters.workflow];
  const workflow = h("select", { id: "analytics-workflow", name: "workflow", dataset: { testid: "analytics-workflow" } },
    [["", strings.analytics.allWorkflows], ...names.map((name) => [name, name])]
      .map(([value, text]) => h("option", { value, selected: value === filters.workflow }, text)));
  const form = h("form", { className: "filters", role: "search", "aria-label": strings.analytics.filtersLabel, noValidate: true },
    field("analytics-from", strings.analytics.fromLabel, from),
    field("analytics-to", strings.analytics.toLabel, to),
    field("analytics-workflow", strings.analytics.workflowLabel, workflow),
    h("div", { className: "filter-actions" },
      h("button", { type: "submit", dataset: { testid: "analytics-apply" } }, strings.analytics.apply)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = { from: from.value, to: to.value, workflow: workflow.value };
    history.pushState(null, "", consoleHref("/console/analytics", next));
    renderAnalytics(ctx, { focusResults: true });
  });
  return form;
}

function results(body) {
  return h("div", { className: "analytics-results", dataset: { testid: "analytics-results" } },
    h("h3", { id: "analytics-range", className: "visually-hidden", tabIndex: -1 }, strings.analytics.funnelCaption(body.from, body.to)),
    funnelPart(body), stepsPart(body), retakesPart(body), devicesPart(body));
}

window.addEventListener("resize", () => {
  const current = document.querySelector('[data-testid="analytics-results"]');
  if (!shown || !current || document.body.dataset.state !== "analytics" || chartWidth() === shown.width) return;
  shown.width = chartWidth();
  current.replaceWith(results(shown.body));
});

/** Shows the analytics for the address's range and workflow. */
export async function renderAnalytics(ctx, { focusResults } = {}) {
  updateLanguageSwitch();
  const filters = filtersFromAddress();
  const result = await call("GET", `/analytics/funnel?${apiQuery(filters)}`);
  if (signedOut(result)) return;
  const section = document.getElementById("analytics");
  const error = h("p", { className: "error", role: "alert", hidden: true, dataset: { testid: "analytics-error" } });
  shown = null;
  if (result.status === 422) {
    section.replaceChildren(heading(strings.titles.analytics, "analytics-title"),
      filterForm(ctx, filters, {}, []), error);
    setMessage(error, strings.analytics.badRange);
    show("analytics");
    focusHeading(section);
    return;
  }
  if (result.status !== 200 || !Array.isArray(result.body.stages)) {
    showPageError(messageFor(result, "load"));
    return;
  }
  const body = result.body;
  for (const name of ["steps", "retakes", "devices"]) if (!Array.isArray(body[name])) body[name] = [];
  const workflows = Array.isArray(body.workflows) ? body.workflows.map(String) : [];
  section.replaceChildren(
    heading(strings.titles.analytics, "analytics-title"),
    h("p", { className: "muted" }, strings.analytics.intro),
    filterForm(ctx, filters, body, workflows), error);
  show("analytics");
  section.append(results(body));  // once shown, so the charts know the page's width
  shown = { body, width: chartWidth() };
  if (focusResults) document.getElementById("analytics-range").focus();
  else focusHeading(section);
}
