// Confirming a photo step: uploads the photos not yet on the server, one at a time with
// progress, then completes the step.
import { call, stepPath, upload } from "./api.js";
import { announce, setMessage } from "./dom.js";
import { filled, showUpload } from "./captureview.js";
import { messageFor } from "./messages.js";
import { strings } from "./strings.js";

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
  if (!ctx.settle(result)) setMessage(view.error, messageFor(result, "upload"));
  return false;
}

async function complete(ctx, view) {
  showUpload(view, strings.capture.saving, null);
  const result = await call("POST", stepPath(ctx.step.id, "/complete"));
  if (ctx.settle(result)) return;
  showUpload(view, "");
  setMessage(view.error, messageFor(result));
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
