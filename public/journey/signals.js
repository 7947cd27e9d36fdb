// Journey analytics (docs/analytics.md): tells the server which step this page shows, that
// the camera is not available, or that the user goes on on another device. Best effort: the
// call is never awaited and its answer never shown, and each signal goes once per page load
// (and step), so a re-render after an upload is not a new view.
import { call } from "./api.js";

const sent = new Set();

/** Reports `signal` (step_viewed, camera_unavailable, continued_elsewhere), for `step` if given. */
export function reportSignal(signal, step) {
  const key = `${signal}\u0000${step || ""}`;
  if (sent.has(key)) return;
  sent.add(key);
  call("POST", "/signals", step ? { signal, step } : { signal });
}
