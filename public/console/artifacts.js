// A photo's thumbnail: the server's re-encoded display copy, opening the full-size copy in the
// page's one <dialog> (closed by its button, Escape or a click beside it).
import { h } from "./dom.js";
import { formatTime } from "./format.js";
import { strings } from "./strings.js";

let opener = null;

function dialog() {
  return document.getElementById("artifact-full");
}

/** Where focus was before the dialog opened gets it back; the big image is let go. */
function afterClose() {
  document.getElementById("artifact-full-image").removeAttribute("src");
  if (opener && opener.isConnected) opener.focus();
  opener = null;
}

function closeFull() {
  const element = dialog();
  if (typeof element.close === "function") {
    if (element.open) element.close(); // fires "close"
    return;
  }
  element.removeAttribute("open");
  afterClose();
}

/** Opens `url` full size, titled and described `text`; focus returns to `from` on closing. */
function openFull(url, text, from) {
  const element = dialog();
  const image = document.getElementById("artifact-full-image");
  image.src = url;
  image.alt = text;
  document.getElementById("artifact-full-title").textContent = text;
  opener = from;
  if (typeof element.showModal === "function") {
    if (!element.open) element.showModal();
  } else {
    element.setAttribute("open", ""); // no <dialog> support: shown in place (Escape wired below)
  }
  document.getElementById("artifact-full-close").focus();
}

/** Once per page: the dialog's close button, a click on the backdrop, and Escape (native for
 *  a modal <dialog>; by hand where the browser has none). */
export function setUpFullImage() {
  const element = dialog();
  document.getElementById("artifact-full-close").addEventListener("click", closeFull);
  element.addEventListener("click", (event) => { if (event.target === element) closeFull(); });
  element.addEventListener("close", afterClose);
  if (typeof element.showModal !== "function") {
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && element.hasAttribute("open")) closeFull();
    });
  }
}

/** A button showing `image`'s display copy ({artifact_id, display_url, full_url, width?, height?})
 *  described `text`, with `overlay` (the face box) drawn over it; it opens the full-size copy.
 *  The display copy loads at once (no lazy loading): a reviewer looks at it. */
export function thumbButton(image, text, overlay = null) {
  const width = Number(image.width) > 0 ? Number(image.width) : null;
  const height = Number(image.height) > 0 ? Number(image.height) : null;
  const picture = h("img", {
    src: String(image.display_url || ""), alt: text, decoding: "async", className: "thumb-image",
    dataset: { testid: "artifact-image", artifactId: String(image.artifact_id || "") },
  });
  // The stored size gives the image its shape before it loads (the display copy keeps it).
  if (width && height) {
    picture.width = width;
    picture.height = height;
  }
  const frame = h("span", { className: "frame" }, picture, overlay);
  const button = h("button", { type: "button", className: "thumb", "aria-label": strings.detail.openFull(text) }, frame);
  button.addEventListener("click", () => openFull(String(image.full_url || image.display_url || ""), text, button));
  return button;
}

/** When `image` was taken, as a caption line (null without a time). */
export function takenLine(image) {
  return image.captured_at ? h("p", { className: "taken muted" }, strings.detail.capturedAt(formatTime(image.captured_at))) : null;
}
