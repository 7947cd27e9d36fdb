// One verification: its summary, every step with its data (profile fields, photos, DigiLocker
// documents), the decision, internal notes and the event timeline. Opening it is recorded by
// the server (a `verification.review_note` event, kind `viewed`).
import { call, signedOut, verificationPath } from "./api.js";
import { definitionList, focusHeading, h, heading } from "./dom.js";
import { captureList } from "./captures.js";
import { decisionSection } from "./decision.js";
import { evidenceSection } from "./evidence.js";
import { label, statusBadge, statusName, reasonName, stepName, timeElement, userText, visibleText } from "./format.js";
import { queueHref } from "./links.js";
import { messageFor } from "./messages.js";
import { notesSection } from "./notes.js";
import { show, showPageError } from "./screens.js";
import { strings } from "./strings.js";
import { timeline } from "./timeline.js";

const PROFILE_FIELDS = ["full_name", "date_of_birth"];
const DOCUMENT_FIELDS = ["document", "name", "date_of_birth", "gender", "number_masked", "issuer"];

function text(value) {
  if (value == null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function metadataList(metadata) {
  const entries = metadata && typeof metadata === "object" ? Object.entries(metadata) : [];
  if (!entries.length) return null;
  return definitionList(entries.map(([key, value]) => [userText(key), userText(text(value))]), { className: "pairs metadata" });
}

function decisionText(verification) {
  if (!verification.decision) return null;
  const decided = statusName(verification.decision);
  return verification.decision_reason ? `${decided}: ${reasonName(verification.decision_reason)}` : decided;
}

function approvalsText(verification) {
  const required = Number(verification.approvals_required) || 1;
  const approvals = Array.isArray(verification.approvals) ? verification.approvals : [];
  if (required < 2 && !approvals.length) return null;
  const who = approvals.map((approval) => approval.email || approval.id).filter(Boolean).join(", ");
  return strings.detail.approvals(approvals.length, required, who);
}

/** "1 of at most 2", once a reviewer has asked for a retake. */
function resubmissionsText(verification) {
  const count = Number(verification.resubmissions) || 0;
  if (!count) return null;
  const max = Number(verification.max_resubmissions);
  return strings.detail.resubmissions(count, Number.isFinite(max) ? max : null);
}

/** The steps the user still has to redo, while a retake is open. */
function reopenedText(verification, steps) {
  if (verification.status !== "resubmission_requested" || !Array.isArray(verification.reopened_steps)) return null;
  const names = verification.reopened_steps.map((id) => {
    const step = steps.find((candidate) => candidate.id === id);
    return step ? stepName(step) : String(id);
  });
  return names.length ? names.join(", ") : null;
}

function resubmissionRows(verification, steps) {
  const fields = strings.detail.fields;
  const asked = Number(verification.resubmissions) > 0;
  return [
    [fields.resubmissions, resubmissionsText(verification), { dataset: { testid: "detail-resubmissions" } }],
    [fields.resubmissionReason, asked && verification.resubmission_reason ? label(strings.retakeReasons, verification.resubmission_reason) : null,
      { dataset: { testid: "detail-resubmission-reason" } }],
    [fields.resubmissionMessage, asked && verification.resubmission_message ? userText(verification.resubmission_message) : null],
    [fields.reopenedSteps, reopenedText(verification, steps), { dataset: { testid: "detail-reopened-steps" } }],
  ];
}

function summary(verification, steps) {
  const fields = strings.detail.fields;
  const workflow = verification.workflow_version != null
    ? strings.detail.workflowVersion(visibleText(verification.workflow), verification.workflow_version)
    : userText(verification.workflow);
  return h("section", { className: "panel", "aria-labelledby": "summary-title" },
    h("h3", { id: "summary-title" }, strings.detail.summaryTitle),
    definitionList([
      [fields.status, statusBadge(verification.status, { dataset: { testid: "detail-status", status: text(verification.status) } })],
      [fields.id, h("span", { className: "id" }, text(verification.id))],
      [fields.userId, verification.user_id == null ? strings.redacted : userText(verification.user_id), { dataset: { testid: "detail-user-id" } }],
      [fields.workflow, workflow],
      [fields.mobile, verification.mobile_last4 ? strings.detail.mobileEnding(text(verification.mobile_last4)) : null],
      [fields.created, verification.created_at ? timeElement(verification.created_at) : null],
      [fields.submitted, verification.submitted_at ? timeElement(verification.submitted_at) : null],
      [fields.decided, verification.decided_at ? timeElement(verification.decided_at) : null],
      [fields.decision, decisionText(verification)],
      [fields.approvals, approvalsText(verification)],
      ...resubmissionRows(verification, steps),
      [fields.expires, verification.expires_at ? timeElement(verification.expires_at) : null],
      [fields.redacted, verification.redacted_at ? timeElement(verification.redacted_at) : null],
      [fields.metadata, metadataList(verification.metadata)],
    ]));
}

function profileList(profile) {
  const names = strings.detail.profileFields;
  const keys = [...PROFILE_FIELDS, ...Object.keys(profile).filter((key) => !PROFILE_FIELDS.includes(key))];
  return definitionList(keys.filter((key) => profile[key] != null).map((key) =>
    [label(names, key), userText(text(profile[key])), { dataset: { testid: "profile-field", field: key } }]));
}

/** One DigiLocker document (`number_masked` is shown exactly as the server masked it). */
function documentCard(record) {
  const names = strings.detail.documentFields;
  const keys = [...DOCUMENT_FIELDS, ...Object.keys(record).filter((key) => !DOCUMENT_FIELDS.includes(key))];
  const value = (key) => (key === "document" ? label(strings.documents, record[key]) : userText(text(record[key])));
  return h("li", { className: "document" },
    definitionList(keys.filter((key) => record[key] != null && record[key] !== "").map((key) =>
      [label(names, key), value(key), { dataset: { testid: "document-field", field: key } }])));
}

function stepData(step, name) {
  const parts = [];
  if (step.profile && typeof step.profile === "object") parts.push(profileList(step.profile));
  const images = Array.isArray(step.images) ? step.images.filter((image) => image && typeof image === "object") : [];
  if (images.length) parts.push(captureList(images, step, name));
  if (Array.isArray(step.documents) && step.documents.length) {
    parts.push(h("ul", { className: "documents" }, step.documents.filter((record) => record && typeof record === "object").map(documentCard)));
  }
  if (!parts.length) parts.push(h("p", { className: "muted" }, step.status === "completed" ? strings.detail.noData : strings.detail.notDone));
  return parts;
}

function stepSection(step, index) {
  const name = stepName(step);
  const titleId = `step-title-${index}`;
  const state = step.completed_at
    ? [strings.detail.completedAt, " ", timeElement(step.completed_at)]
    : label(strings.stepStatuses, step.status);
  return h("section", { className: "step", "aria-labelledby": titleId, dataset: { testid: "detail-step", stepId: text(step.id), stepType: text(step.type) } },
    h("h4", { id: titleId }, name),
    h("p", { className: "muted step-state" }, state),
    stepData(step, name));
}

function stepsSection(steps) {
  return h("section", { className: "panel", "aria-labelledby": "steps-title" },
    h("h3", { id: "steps-title" }, strings.detail.stepsTitle),
    steps.length ? steps.map(stepSection) : h("p", { className: "muted" }, strings.detail.noSteps));
}

function timelineSection(events, steps) {
  return h("section", { className: "panel", "aria-labelledby": "timeline-title" },
    h("h3", { id: "timeline-title" }, strings.detail.timelineTitle),
    timeline(events, steps));
}

/** What a reviewer should know before looking: one banner per flag, above everything else. */
function flagBanners(flags) {
  if (!Array.isArray(flags)) return [];
  return flags.filter((flag) => typeof flag === "string").map((flag) =>
    h("p", { className: "flag-banner", role: "note", dataset: { testid: "detail-flag", flag } }, label(strings.detail.flagBanners, flag)));
}

function list(value) {
  return Array.isArray(value) ? value.filter((item) => item && typeof item === "object") : [];
}

/** Shows verification `id`. `outcome` (after a decision) is shown above the decision panel;
 *  `focus` names the element to focus (else the outcome, else the heading). */
export async function renderDetail(ctx, id, { outcome, focus } = {}) {
  const result = await call("GET", verificationPath(id));
  if (signedOut(result)) return;
  if (result.status !== 200 || !result.body.verification || typeof result.body.verification !== "object") {
    showPageError(result.code === "not_found" ? strings.detail.notFound : messageFor(result, "load"));
    return;
  }
  const detail = result.body;
  const verification = detail.verification;
  const steps = list(detail.steps);
  const reload = (state) => renderDetail(ctx, id, state);
  const section = document.getElementById("detail");
  section.replaceChildren(
    h("p", { className: "back" }, h("a", { href: queueHref(), dataset: { testid: "detail-back" } }, strings.detail.back)),
    heading(strings.detail.title(verification.user_id == null ? strings.redacted : userText(verification.user_id)), "detail-title"),
    ...flagBanners(verification.flags),
    h("div", { className: "detail-grid" },
      h("div", { className: "detail-main" }, summary(verification, steps), evidenceSection(text(verification.id || id)), stepsSection(steps)),
      h("div", { className: "detail-side" },
        decisionSection(detail, ctx.me, reload, outcome),
        notesSection(text(verification.id || id), list(detail.notes), reload),
        timelineSection(list(detail.events), steps))));
  show("detail");
  const target = (focus && document.getElementById(focus)) || (outcome && document.getElementById("decision-outcome"));
  if (target) target.focus();
  else focusHeading(section);
}
