// The journey's brand: asked for before sign-in (GET /j/{id}/api/brand names only the account's
// display name, colours, logo and support URL), shown on every screen, since the header is shared.
import { call } from "./api.js";
import { showBrand } from "../common/brand.js";
import { strings } from "./strings.js";

/** Starts asking for the brand at once; the promise resolves to the brand or null. */
export function fetchBrand() {
  return call("GET", "/brand").then((result) => (result.status === 200 ? result.body : null));
}

/** Shows the brand once the strings are loaded (the title is in the page's language). */
export function applyBrand(brand) {
  showBrand(brand, strings.brandedTitle);
  if (brand && brand.livemode === false) showTestBanner();
}

/** A test verification (made with a test key): a banner over every screen saying that nothing
 *  here is real and that the sign-in code is 000000 (no SMS is sent in test mode). */
function showTestBanner() {
  if (document.getElementById("test-banner")) return;
  const banner = document.createElement("p");
  banner.id = "test-banner";
  banner.className = "test-banner";
  banner.dataset.testid = "journey-test-banner";
  banner.setAttribute("role", "note");
  const title = document.createElement("strong");
  title.textContent = strings.testBannerTitle;
  banner.append(title, " ", strings.testBannerText);
  document.getElementById("app").prepend(banner);
}
