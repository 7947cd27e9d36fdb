// Confirming a photo step: uploads the photos not yet on the server, one at a time with
// progress; the server checks each (its `quality`). When every photo passes, the step is
// completed; when one fails, the page stops to show why, and the next tap on the button (if the
// step allows it, see quality.js) completes the step with the failing photos kept anyway.
import { call, stepPath, upload } from "./api.js";
import { announce, setMessage } from "./dom.js";
import { filled, showUpload } from "./captureview.js";
import { locationQuery } from "./geolocation.js";
import { messageFor } from "./messages.js";
import { failing, instruction, verdictOf } from "./quality.js";
import { strings } from "./strings.js";

async function sendOne(ctx, view, model, shot, index, total) {
  const label = strings.capture.uploading(index, total);
  announce(label);
  showUpload(view, label, 0);
  const blob = await shot.blob;
  if (!blob) {
    setMessage(view.error, strings.capture.invalid);
    return false;
  }
  const where = shot.location ? await shot.location : null;
  const result = await upload(stepPath(ctx.step.id, `/images${locationQuery(where)}`), blob, (fraction) => {
    showUpload(view, `${label} ${Math.round(fraction * 100)}%`, fraction);
  });
  if (result.status === 201 && result.body.artifact_id) {
    shot.artifactId = result.body.artifact_id;
    shot.verdict = verdictOf(result.body.quality);
    const attempt = result.body.quality && result.body.quality.attempt;
    if (Number.isInteger(attempt)) model.attempts = Math.max(model.attempts, attempt);
    return true;
  }
  if (!ctx.settle(result)) setMessage(view.error, messageFor(result, "upload"));
  return false;
}

async function complete(ctx, view, keepAnyway) {
  showUpload(view, strings.capture.saving, null);
  const result = await call("POST", stepPath(ctx.step.id, "/complete"), keepAnyway ? { keep_anyway: true } : undefined);
  if (ctx.settle(result)) return;
  showUpload(view, "");
  setMessage(view.error, messageFor(result, "complete"));
}

export async function confirmPhotos(ctx, view, model, redraw) {
  if (model.busy) return;
  setMessage(view.error, "");
  model.busy = true;
  redraw();
  const waiting = filled(model).filter((shot) => !shot.artifactId);
  for (const [index, shot] of waiting.entries()) {
    if (!(await sendOne(ctx, view, model, shot, index + 1, waiting.length))) {
      showUpload(view, "");
      model.busy = false;
      redraw();
      return;
    }
  }
  const failed = failing(model.shots);
  // A photo that just failed: say why first; the user retakes it or taps again to keep it.
  if (failed.some((shot) => waiting.includes(shot))) {
    showUpload(view, "");
    model.busy = false;
    redraw();
    announce(failed.flatMap((shot) => shot.verdict.reasons).map(instruction).join(" "));
    return;
  }
  await complete(ctx, view, failed.length > 0);
  model.busy = false;
  if (view.root.isConnected) redraw();
}
