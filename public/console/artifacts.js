// A step's images: thumbnails of the server's re-encoded display copies, each opening the
// full-size copy in the page's one <dialog> (closed by its button, Escape or a click beside it).
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

/** The thumbnails of `images` ({artifact_id, captured_at, display_url, full_url}) of a step
 *  called `name`. The display copies load at once (no lazy loading): a reviewer looks at them. */
export function thumbnails(images, name) {
  const items = images.map((image, index) => {
    const text = strings.detail.photoAlt(name, index + 1, images.length);
    const picture = h("img", {
      src: String(image.display_url || ""), alt: text, decoding: "async", className: "thumb-image",
      dataset: { testid: "artifact-image", artifactId: String(image.artifact_id || "") },
    });
    const button = h("button", { type: "button", className: "thumb", "aria-label": strings.detail.openFull(text) }, picture);
    button.addEventListener("click", () => openFull(String(image.full_url || image.display_url || ""), text, button));
    const caption = image.captured_at ? strings.detail.capturedAt(formatTime(image.captured_at)) : null;
    return h("li", {}, h("figure", {}, button, caption ? h("figcaption", { className: "muted" }, caption) : null));
  });
  return h("ul", { className: "thumbs" }, items);
}
