// The page's language, shared by the journey and the console: `?lang=hi|en`, else the
// browser's first language the pages speak, else English. Each page keeps one catalogue per
// language in its own i18n/ folder and loads only the one it needs.
export const catalogues = { en: "English", hi: "हिन्दी" };

/** "hi" or "en" for a language tag such as "hi-IN", or undefined. */
function supported(tag) {
  const base = String(tag || "").toLowerCase().split("-")[0];
  return Object.prototype.hasOwnProperty.call(catalogues, base) ? base : undefined;
}

export function chooseLanguage(search, preferred) {
  const asked = supported(new URLSearchParams(search).get("lang"));
  if (asked) return asked;
  for (const tag of preferred || []) {
    const found = supported(tag);
    if (found) return found;
  }
  return "en";
}

export const language = chooseLanguage(location.search, navigator.languages || [navigator.language]);

/** The language the address asks for (`?lang=`), if the pages speak it: kept on links and trips
 *  away from the page. */
export const askedLanguage = supported(new URLSearchParams(location.search).get("lang"));

/** Fills `strings` with the catalogue in `folder` (a URL ending in "/") for `language`. */
export async function loadCatalogue(folder, strings) {
  const path = `${folder}${language}.js`;
  // Once more on a network hiccup (another URL: a failed module load may stay cached).
  const catalogue = await import(path).catch(() => import(`${path}?again`));
  Object.assign(strings, catalogue.default);
}

/** Points the page's language link (#language-switch) at `path` in the other language, the
 *  query's other parameters kept. */
export function pointLanguageSwitch(path) {
  const other = language === "hi" ? "en" : "hi";
  const query = new URLSearchParams(location.search);
  query.set("lang", other);
  const link = document.getElementById("language-switch");
  link.href = `${path}?${query}`;
  link.lang = link.hreflang = other;
  link.textContent = catalogues[other];
}

/** Sets the page's language and title, and the words of its `data-i18n` (text) and
 *  `data-i18n-label` (aria-label) elements, each from `lookup(key)`. */
export function translateStaticPage(title, lookup) {
  document.documentElement.lang = language;
  document.title = title;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = lookup(element.dataset.i18n);
  }
  for (const element of document.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", lookup(element.dataset.i18nLabel));
  }
}
