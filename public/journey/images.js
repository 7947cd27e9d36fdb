// Photos for upload: at most 1600 px on the long side, JPEG at quality 0.85.
const MAX_SIDE = 1600;

export function fitSize(width, height, maxSide = MAX_SIDE) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Draws `source` (video or image) into a new canvas of the fitted size, there and then. */
function drawFitted(source, width, height) {
  const canvas = document.createElement("canvas");
  Object.assign(canvas, fitSize(width, height));
  canvas.getContext("2d").drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** The JPEG bytes of `canvas`, or null when the browser could not encode them. */
export function canvasToJpeg(canvas) {
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
}

/** The frame the video shows at the moment of the tap. */
export function frameOf(video) {
  return drawFitted(video, video.videoWidth, video.videoHeight);
}

/** A chosen JPEG/PNG file, decoded (EXIF orientation applied) and fitted; rejects if unreadable. */
export function fileToCanvas(file) {
  const url = URL.createObjectURL(file);
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(drawFitted(image, image.naturalWidth, image.naturalHeight));
    image.onerror = reject;
    image.src = url;
  }).finally(() => URL.revokeObjectURL(url));
}
