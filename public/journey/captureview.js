// The elements of a photo step, and how they show the step's model.
import { errorLine, h, setMessage } from "./dom.js";
import { allowance, failing, reasonList } from "./quality.js";
import { strings } from "./strings.js";

let fileInputs = 0;

function cameraPreview(facing) {
  const video = h("video", { className: facing === "user" ? "mirror" : "", "aria-label": strings.camera.preview });
  video.muted = true;
  for (const name of ["muted", "playsinline", "autoplay"]) video.setAttribute(name, "");
  return video;
}

function fileArea(facing) {
  const id = `file-input-${++fileInputs}`;
  const input = h("input", { id, type: "file", accept: "image/jpeg,image/png", dataset: { testid: "file-input" } });
  input.setAttribute("capture", facing);
  const label = h("label", { htmlFor: id });
  return { area: h("div", { hidden: true }, label, input), input, label };
}

export function buildView(plan) {
  const text = strings.capture;
  const video = cameraPreview(plan.facing);
  const file = fileArea(plan.facing);
  const progressText = h("p", { id: `upload-${fileInputs}` });
  const view = {
    video,
    viewer: h("div", { className: "viewer", hidden: true }, video),
    note: h("p", { className: "note", hidden: true }),
    capture: h("button", { type: "button", hidden: true, dataset: { testid: "capture" } }, text.take),
    useFile: h("button", { type: "button", className: "link", hidden: true }, strings.camera.useFile),
    fileArea: file.area,
    fileInput: file.input,
    fileLabel: file.label,
    shots: h("ul", { className: plan.max === 1 ? "shots single" : "shots" }),
    hint: h("p", { className: "muted" }),
    guidance: h("p", { className: "note warning", role: "status", hidden: true, dataset: { testid: "live-guidance" } }),
    qualityNote: h("p", { className: "note warning", role: "status", hidden: true, dataset: { testid: "quality-summary" } }),
    locationNote: h("p", { className: "muted", hidden: !plan.location }, strings.location.ask),
    progressText,
    progress: h("progress", { max: 1, value: 0, "aria-labelledby": progressText.id }),
    error: errorLine(),
    confirm: h("button", { type: "button", hidden: true, dataset: { testid: "confirm" } },
      plan.max === 1 ? text.confirm : text.confirmMany),
  };
  view.upload = h("div", { className: "upload", hidden: true }, progressText, view.progress);
  view.root = h("div", { className: "photos" }, h("p", {}, plan.intro), view.locationNote, view.guidance, view.viewer,
    view.note, view.capture, view.fileArea, view.shots, view.hint, view.qualityNote, view.upload, view.error, view.confirm,
    view.useFile);
  return view;
}

export function filled(model) {
  return model.shots.filter(Boolean);
}

function nextLabel(model) {
  const slot = model.shots.indexOf(null);
  return slot < 0 ? "" : model.plan.labels[slot];
}

function hintText(model, count) {
  const { min, max } = model.plan;
  if (count < min) return strings.capture.needMore(min - count);
  return max > min ? strings.capture.count(count, max) : "";
}

function noteText(model, full) {
  if (full) return "";
  if (model.problem) return `${strings.camera[model.problem]} ${strings.camera.fallback}`;
  return model.ready ? "" : strings.camera.starting;
}

export function showModel(view, model) {
  const count = filled(model).length;
  const full = count >= model.plan.max;
  const named = !model.plan.removes && model.plan.max > 1; // e.g. front and back
  const label = nextLabel(model);
  view.viewer.hidden = full || Boolean(model.problem);
  setMessage(view.note, noteText(model, full));
  view.capture.hidden = full || Boolean(model.problem) || !model.ready;
  view.capture.textContent = named && label ? `${strings.capture.take}: ${label}` : strings.capture.take;
  view.useFile.hidden = full || Boolean(model.problem) || model.fileAsked;
  view.fileArea.hidden = full || !(model.problem || model.fileAsked);
  view.fileLabel.textContent = named && label ? `${strings.camera.fileLabel}: ${label}` : strings.camera.fileLabel;
  view.hint.textContent = hintText(model, count);
  showVerdict(view, model, count, full);
  for (const control of [view.capture, view.useFile, view.fileInput, view.confirm, ...view.shots.querySelectorAll("button")]) {
    control.disabled = model.busy;
  }
}

/** The checks' verdict on the step: the advice above the button, and whether the button may
 *  use failing photos anyway (`data-keep-anyway`) or must wait for a retake. */
function showVerdict(view, model, count, full) {
  const failed = failing(model.shots);
  const waiting = model.shots.some((shot) => shot && !shot.artifactId);
  const { keep, advice } = allowance(model);
  const judged = failed.length > 0 && !waiting;
  setMessage(view.qualityNote, judged ? advice : "");
  view.confirm.hidden = count < model.plan.min || (judged && !keep);
  view.confirm.dataset.keepAnyway = String(judged);
  const many = model.plan.max > 1;
  view.confirm.textContent = judged ? (many ? strings.quality.useAnywayMany : strings.quality.useAnyway)
    : many ? strings.capture.confirmMany : strings.capture.confirm;
  view.guidance.hidden = full || !model.guidance || Boolean(model.problem);
  if (model.guidance) view.guidance.dataset.reason = model.guidance;
  view.guidance.textContent = model.guidance ? strings.quality.live[model.guidance] : "";
}

/** The tile's verdict and location lines, redrawn only when they change. */
function tileDetails(shot) {
  if (shot.shownVerdict === shot.verdict && shot.shownLocation === shot.where) return;
  shot.shownVerdict = shot.verdict;
  shot.shownLocation = shot.where;
  const lines = [reasonList(shot.verdict),
    shot.where ? h("p", { className: "muted", dataset: { testid: "location-added" } }, strings.location.added) : null];
  shot.details.replaceChildren(...lines.filter(Boolean));
}

/** A photo's tile, made once and kept (a new one would lose focus); its canvas gives way to
 *  the encoded JPEG. */
function tile(shot, model, onRemove) {
  const text = strings.capture;
  if (!shot.tile) {
    const word = model.plan.removes ? text.remove : text.retake;
    const button = h("button", { type: "button", className: "secondary", dataset: { testid: "retake" },
      "aria-label": `${word}: ${shot.label}` }, word);
    button.addEventListener("click", onRemove);
    shot.picture = shot.canvas || h("div", { className: "placeholder" }, text.uploadedEarlier);
    shot.details = h("div", {});
    shot.tile = h("li", {}, h("figure", {}, shot.picture, h("figcaption", {}, shot.label)), shot.details, button);
  }
  tileDetails(shot);
  if (shot.url && shot.picture === shot.canvas) {
    shot.picture = h("img", { src: shot.url, alt: shot.label, className: shot.canvas.className });
    shot.canvas.replaceWith(shot.picture);
  }
  return shot.tile;
}

/** Adds and removes tiles, leaving the others in place. */
export function showShots(view, model, onRemove) {
  const tiles = [];
  model.shots.forEach((shot, slot) => {
    if (shot) tiles.push(tile(shot, model, () => onRemove(slot)));
  });
  for (const old of [...view.shots.children]) if (!tiles.includes(old)) old.remove();
  tiles.forEach((element, index) => {
    if (view.shots.children[index] !== element) view.shots.insertBefore(element, view.shots.children[index] || null);
  });
  view.shots.hidden = tiles.length === 0;
}

export function showUpload(view, message, fraction) {
  view.upload.hidden = !message;
  view.progressText.textContent = message || "";
  if (typeof fraction === "number") view.progress.value = fraction;
  else view.progress.removeAttribute("value"); // indeterminate
}
