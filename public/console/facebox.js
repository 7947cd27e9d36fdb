// The face the capture checks found, outlined over a selfie. The box is in pixels of the stored
// photo; the outline is an SVG whose viewBox is the stored photo's size, laid exactly over the
// <img> and scaled as the image is (preserveAspectRatio "meet" is object-fit "contain"), so it
// lands on the face at whatever size the photo is displayed, with no measuring or resize handler.
const SVG = "http://www.w3.org/2000/svg";

function svgElement(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/** The box's numbers, or null when any is missing or outside the stored photo. */
function boxWithin(face, width, height) {
  const [x, y, w, h] = ["x", "y", "width", "height"].map((key) => Number(face[key]));
  if (![x, y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) return null;
  if (x < 0 || y < 0 || x + w > width || y + h > height) return null;
  return { x, y, width: w, height: h };
}

/** An outline of `image.quality.face` over the photo (`image.width` × `image.height` stored
 *  pixels), or null without a face or without the stored size. Decorative for a screen reader:
 *  the caption says a face was found. */
export function faceBox(image) {
  const face = image && image.quality && typeof image.quality.face === "object" ? image.quality.face : null;
  const width = Number(image && image.width);
  const height = Number(image && image.height);
  if (!face || !(width > 0) || !(height > 0)) return null;
  const box = boxWithin(face, width, height);
  if (!box) return null;
  const overlay = svgElement("svg", {
    class: "face-overlay", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "xMidYMid meet",
    "aria-hidden": "true", focusable: "false",
  });
  // A dark halo under a bright line: the outline shows on a light face and on a dark one.
  overlay.append(
    svgElement("rect", { ...box, class: "face-halo", "vector-effect": "non-scaling-stroke" }),
    svgElement("rect", { ...box, class: "face-line", "vector-effect": "non-scaling-stroke", "data-testid": "face-box" }));
  return overlay;
}
