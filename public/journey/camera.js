// The camera: one live stream at a time, stopped whenever the page leaves a photo step.
import { reportSignal } from "./signals.js";

let current = null;
let generation = 0; // bumped by every stop, so that a stream arriving late is not kept

/** The `strings.camera` key that explains a getUserMedia error. */
export function cameraProblem(error) {
  switch (error.name) {
    case "NotAllowedError": case "SecurityError": return "denied";
    case "NotFoundError": case "OverconstrainedError": return "missing";
    case "NotReadableError": case "AbortError": return "busy";
    default: return "failed";
  }
}

/** Starts the "user" (front) or "environment" (back) camera into `video`: null when it runs,
 *  else the `strings.camera` key of the problem. */
export async function startCamera(video, facingMode) {
  stopCamera();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    reportSignal("camera_unavailable");
    return "unsupported";
  }
  const ticket = generation;
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode, width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false,
    });
    if (ticket !== generation) {
      stream.getTracks().forEach((track) => track.stop());
      return null;
    }
    current = stream;
    video.srcObject = stream;
    await video.play().catch(() => {});
    return null;
  } catch (error) {
    reportSignal("camera_unavailable");
    return cameraProblem(error);
  }
}

/** False when this device shows no camera at all: no way to list the devices, or none listed
 *  (which a browser may answer before any permission). True when the list cannot be read:
 *  the photo step then finds out for itself, and offers the file input. */
export async function cameraAvailable() {
  const devices = navigator.mediaDevices;
  if (!devices || !devices.enumerateDevices) return false;
  try {
    return (await devices.enumerateDevices()).some((device) => device.kind === "videoinput");
  } catch {
    return true;
  }
}

/** False once the stream has ended, e.g. after the app went to the background. */
export function cameraLive() {
  return Boolean(current && current.active);
}

export function stopCamera() {
  generation += 1;
  if (current) current.getTracks().forEach((track) => track.stop());
  current = null;
}
