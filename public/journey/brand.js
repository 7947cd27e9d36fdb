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
}
