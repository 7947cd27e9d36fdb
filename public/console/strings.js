// The console's words: the language is chosen as the journey's is (../common/language.js); all
// strings live in one catalogue per language (i18n/), and a page loads only its own.
import { loadCatalogue, pointLanguageSwitch, translateStaticPage } from "../common/language.js";

export { askedLanguage } from "../common/language.js";

/** The catalogue, filled by loadStrings() before anything is shown. */
export const strings = {};

export function loadStrings() {
  return loadCatalogue(new URL("./i18n/", import.meta.url).href, strings);
}

/** Words for the static page's `data-i18n` (text) and `data-i18n-label` (aria-label) keys. */
export function translatePage() {
  translateStaticPage(strings.page.title, (key) => strings.page[key] ?? "");
  updateLanguageSwitch();
}

/** Points the language link at this page (address and query as they are now) in the other
 *  language; called again whenever the queue changes the address. */
export function updateLanguageSwitch() {
  pointLanguageSwitch(location.pathname);
}
