// Live guidance before capture: the camera frame's brightness, measured a few times a second on
// a tiny copy, says "move to a brighter place" before a dark photo is taken. The floors are the
// server's (CaptureThresholds in HostedCore; a test holds them equal); faces are only judged on
// the server.
const MINIMUM_BRIGHTNESS = 0.25;
const MAXIMUM_CLIPPED = 0.4;
const SAMPLE_WIDTH = 32;
const SAMPLE_HEIGHT = 24;
const EVERY_MS = 500;

/** "too_dark", "too_bright" or "" for the pixels of one frame (RGBA bytes). */
export function brightnessReason(pixels) {
  let sum = 0;
  let clipped = 0;
  const count = pixels.length / 4;
  for (let index = 0; index < pixels.length; index += 4) {
    const luma = 0.299 * pixels[index] + 0.587 * pixels[index + 1] + 0.114 * pixels[index + 2];
    sum += luma;
    if (luma >= 250) clipped += 1;
  }
  if (!count) return "";
  if (sum / count / 255 < MINIMUM_BRIGHTNESS) return "too_dark";
  return clipped / count > MAXIMUM_CLIPPED ? "too_bright" : "";
}

/** Calls `onChange(reason)` whenever the live frame's verdict changes, until the video leaves
 *  the page; returns a function that stops it sooner. */
export function watchBrightness(video, onChange) {
  const canvas = document.createElement("canvas");
  canvas.width = SAMPLE_WIDTH;
  canvas.height = SAMPLE_HEIGHT;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  let last = "";
  const timer = setInterval(() => {
    if (!video.isConnected) return stop();
    if (video.readyState < 2 || !video.videoWidth || video.paused) return;
    try {
      context.drawImage(video, 0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
      const reason = brightnessReason(context.getImageData(0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT).data);
      if (reason !== last) onChange((last = reason));
    } catch {
      stop(); // a frame the browser will not read back: no guidance, the server still checks
    }
  }, EVERY_MS);
  function stop() {
    clearInterval(timer);
    if (last) onChange((last = ""));
  }
  return stop;
}
