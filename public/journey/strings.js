// The journey's words: the language is chosen as the console's is (../common/language.js); all
// strings live in one catalogue per language (i18n/), and a page loads only its own.
import { loadCatalogue, pointLanguageSwitch, translateStaticPage } from "../common/language.js";

export { askedLanguage } from "../common/language.js";

/** The catalogue, filled by loadStrings() before anything is shown. */
export const strings = {};

export function loadStrings() {
  return loadCatalogue(new URL("./i18n/", import.meta.url).href, strings);
}

function pageString(key) {
  return strings.page[key] ?? strings[key];
}

/** Words for the static page's `data-i18n` (text) and `data-i18n-label` (aria-label) keys, and
 *  a link to this page in the other language, the query's other parameters kept. */
export function translatePage() {
  translateStaticPage(strings.page.title, pageString);
  pointLanguageSwitch("");
}
