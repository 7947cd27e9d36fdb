// Confirming a photo step: uploads the photos not yet on the server, one at a time with
// progress, then completes the step.
import { call, stepPath, upload } from "./api.js";
import { announce, setMessage } from "./dom.js";
import { filled, showUpload } from "./captureview.js";
import { strings } from "./strings.js";

/** The message for a failed upload; null when the step must be reloaded. */
function uploadProblem(ctx, result) {
  if (result.status === 413) return strings.capture.tooLarge;
  if (result.status === 422) return strings.capture.invalid;
  if (result.status === 409) return null;
  return ctx.failure(result);
}

async function sendOne(ctx, view, shot, index, total) {
  const label = strings.capture.uploading(index, total);
  announce(label);
  showUpload(view, label, 0);
  const blob = await shot.blob;
  if (!blob) {
    setMessage(view.error, strings.capture.invalid);
    return false;
  }
  const result = await upload(stepPath(ctx.step.id, "/images"), blob, (fraction) => {
    showUpload(view, `${label} ${Math.round(fraction * 100)}%`, fraction);
  });
  if (result.status === 201 && result.body.artifact_id) {
    shot.artifactId = result.body.artifact_id;
    return true;
  }
  if (ctx.settle(result)) return false;
  const problem = uploadProblem(ctx, result);
  if (problem === null) ctx.reload(strings.capture.recount);
  else setMessage(view.error, problem);
  return false;
}

async function complete(ctx, view) {
  showUpload(view, strings.capture.saving, null);
  const result = await call("POST", stepPath(ctx.step.id, "/complete"));
  if (ctx.settle(result)) return;
  showUpload(view, "");
  if (result.status === 422) ctx.reload(strings.capture.recount);
  else setMessage(view.error, ctx.failure(result));
}

export async function confirmPhotos(ctx, view, model, redraw) {
  if (model.busy) return;
  setMessage(view.error, "");
  model.busy = true;
  redraw();
  const waiting = filled(model).filter((shot) => !shot.artifactId);
  for (const [index, shot] of waiting.entries()) {
    if (!(await sendOne(ctx, view, shot, index + 1, waiting.length))) {
      showUpload(view, "");
      model.busy = false;
      redraw();
      return;
    }
  }
  await complete(ctx, view);
  model.busy = false;
  if (view.root.isConnected) redraw();
}
