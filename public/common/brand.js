// The customer's brand on a page (issue 44): its display name and logo in the header
// (#brand-name, #brand-logo), its accent colour for buttons and links, and its support link
// (#brand-help). The server sends the colours already made readable (AccentColor.accessible:
// at least 4.5:1 against the text), so the page only sets them. The CSP forbids style
// attributes in markup, not the CSSOM: the colours go in as custom properties through
// `style.setProperty`. Without a brand nothing changes: the default look stays.

/** Shows `brand` ({display_name, accent_color, accent_color_dark, support_url, logo_url}, any
 *  of them null) on the page; `title(name)` is the page title naming the business, if any. */
export function showBrand(brand, title) {
  if (!brand || typeof brand !== "object") return;
  const name = typeof brand.display_name === "string" ? brand.display_name : "";
  const nameElement = document.getElementById("brand-name");
  const logo = document.getElementById("brand-logo");
  if (nameElement) {
    nameElement.textContent = name;
    nameElement.hidden = !name;
  }
  if (logo && typeof brand.logo_url === "string") {
    logo.alt = name;
    logo.src = brand.logo_url;
    logo.hidden = false;
  }
  const area = document.getElementById("brand");
  if (area) area.hidden = !name && typeof brand.logo_url !== "string";
  if (name && title) document.title = title(name);
  const root = document.documentElement.style;
  if (typeof brand.accent_color === "string") root.setProperty("--brand-accent", brand.accent_color);
  if (typeof brand.accent_color_dark === "string") root.setProperty("--brand-accent-dark", brand.accent_color_dark);
  const help = document.getElementById("brand-help");
  if (help && typeof brand.support_url === "string" && brand.support_url.startsWith("https://")) {
    help.href = brand.support_url;
    help.hidden = false;
  }
}

/** Takes the brand off the page again (the console after signing out). */
export function clearBrand() {
  for (const id of ["brand", "brand-name", "brand-logo", "brand-help"]) {
    const element = document.getElementById(id);
    if (element) element.hidden = true;
  }
  const root = document.documentElement.style;
  root.removeProperty("--brand-accent");
  root.removeProperty("--brand-accent-dark");
}
