// The photo steps (selfie, premises_photos, document): live camera, capture, retake, confirm;
// a file input whenever the camera is missing, refused or not working.
import { call, stepPath } from "./api.js";
import { cameraLive, startCamera } from "./camera.js";
import { announce, h, setMessage } from "./dom.js";
import { buildView, showModel, showShots } from "./captureview.js";
import { confirmPhotos } from "./capturesend.js";
import { askLocation } from "./geolocation.js";
import { canvasToJpeg, fileToCanvas, frameOf } from "./images.js";
import { watchBrightness } from "./liveguide.js";
import { messageFor } from "./messages.js";
import { photoPlan } from "./photoplan.js";
import { verdictOf } from "./quality.js";
import { strings } from "./strings.js";

let active = null; // the photo step on screen: its camera is revived when the page comes back

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && active && active.view.root.isConnected) wake(active);
});

function redraw(step) {
  showShots(step.view, step.model, (slot) => removeShot(step, slot));
  showModel(step.view, step.model);
}

function start(step) {
  step.model.ready = false;
  if (step.stopGuidance) step.stopGuidance();
  startCamera(step.view.video, step.model.plan.facing).then((problem) => {
    step.model.problem = problem;
    if (!problem) {
      step.stopGuidance = watchBrightness(step.view.video, (reason) => {
        step.model.guidance = reason;
        redraw(step);
      });
    }
    redraw(step);
  });
}

function wake(step) {
  if (!step.model.problem && !cameraLive()) start(step);
}

function focusNext(view) {
  const target = [view.capture, view.fileInput, view.confirm].find((element) => !element.closest("[hidden]"));
  if (target) target.focus();
}

/** Puts a picture into the first free slot; it is encoded to JPEG in the background. */
function addShot(step, canvas) {
  const { model, view } = step;
  const slot = model.shots.indexOf(null);
  if (slot < 0) return;
  const label = model.plan.labels[slot];
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  const shot = { label, canvas };
  // Asked at the moment of capture, through the browser's own prompt; the upload waits for it.
  if (model.plan.location) {
    shot.location = askLocation().then((where) => {
      shot.where = where;
      if (model.shots.includes(shot)) redraw(step);
      return where;
    });
  }
  shot.blob = canvasToJpeg(canvas).then((blob) => {
    if (blob && model.shots.includes(shot)) {
      shot.url = URL.createObjectURL(blob);
      redraw(step);
    }
    return blob;
  });
  model.shots[slot] = shot;
  setMessage(view.error, "");
  redraw(step);
  announce(strings.capture.taken(label));
  if (view.capture.hidden) focusNext(view);
}

function capture(step) {
  const { model, view } = step;
  if (model.busy || !model.ready || !view.video.videoWidth) return;
  const canvas = frameOf(view.video);
  canvas.className = view.video.className; // a selfie stays mirrored, as it was seen
  addShot(step, canvas);
}

async function chooseFile(step) {
  const input = step.view.fileInput;
  const file = input.files && input.files[0];
  input.value = "";
  if (!file) return;
  try {
    addShot(step, await fileToCanvas(file));
  } catch {
    setMessage(step.view.error, strings.camera.fileUnreadable);
  }
}

/** Retake/remove: also deletes the photo from the server if it was uploaded. */
async function removeShot(step, slot) {
  const { ctx, model, view } = step;
  const shot = model.shots[slot];
  if (!shot || model.busy) return;
  if (shot.artifactId) {
    model.busy = true;
    redraw(step);
    const result = await call("DELETE", stepPath(ctx.step.id, `/images/${encodeURIComponent(shot.artifactId)}`));
    model.busy = false;
    // 404: the photo is gone from the server already, which is what was asked.
    if (result.status !== 204 && result.code !== "not_found") {
      if (ctx.settle(result)) return;
      redraw(step);
      return void setMessage(view.error, messageFor(result));
    }
  }
  model.shots[slot] = null;
  if (shot.url) URL.revokeObjectURL(shot.url);
  setMessage(view.error, "");
  redraw(step);
  view.video.play().catch(() => {});
  announce(strings.capture.removed(shot.label));
  focusNext(view);
}

function wire(step) {
  const { view, model } = step;
  const mark = () => {
    if (model.ready) return;
    model.ready = true;
    redraw(step);
  };
  // Ready once a frame was shown: cameras (and WebKit) may start with black frames.
  const ready = () => {
    const video = view.video;
    if (video.readyState < 2 || !video.videoWidth || model.ready) return;
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(mark);
    else setTimeout(mark, 300);
  };
  view.video.addEventListener("loadeddata", ready);
  view.video.addEventListener("playing", ready);
  view.capture.addEventListener("click", () => capture(step));
  view.fileInput.addEventListener("change", () => chooseFile(step));
  view.useFile.addEventListener("click", () => {
    model.fileAsked = true;
    redraw(step);
    view.fileInput.focus();
  });
  view.confirm.addEventListener("click", () => confirmPhotos(step.ctx, view, model, () => redraw(step)));
}

/** Photos already on the server (an earlier visit) fill the first slots, with their verdicts. */
function initialShots(plan, step) {
  const shots = Array(plan.max).fill(null);
  const captures = Array.isArray(step.captures) ? step.captures : [];
  (step.artifacts || []).slice(0, plan.max).forEach((artifactId, slot) => {
    const capture = captures.find((candidate) => candidate && candidate.id === artifactId);
    shots[slot] = { label: plan.labels[slot], artifactId, verdict: verdictOf(capture) };
  });
  return shots;
}

/** How the step judges its photos: the server's mode, uploads so far and the way out. */
function checksOf(step) {
  const count = (value, fallback) => (Number.isInteger(value) && value >= 0 ? value : fallback);
  return { mode: step.quality === "require" ? "require" : "guide", attempts: count(step.attempts, 0),
    keepFrom: count(step.keep_anyway_from, 3), guidance: "" };
}

export function renderPhotos(ctx) {
  const plan = photoPlan(ctx.step);
  if (!plan) return h("p", {}, strings.unknownStep);
  const model = { plan, shots: initialShots(plan, ctx.step), ready: false, problem: null, fileAsked: false, busy: false,
    ...checksOf(ctx.step) };
  const step = { ctx, model, view: buildView(plan) };
  if (active) active.model.shots.forEach((shot) => shot && shot.url && URL.revokeObjectURL(shot.url));
  active = step;
  wire(step);
  redraw(step);
  start(step);
  return step.view.root;
}
