// The page's language: `?lang=hi|en`, else the browser's first language that the console speaks,
// else English (the journey's rules). All strings live in one catalogue per language (i18n/);
// a page loads only its own.
const catalogues = { en: "English", hi: "हिन्दी" };

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

/** The language the address asks for (`?lang=`), if the console speaks it: kept on every link
 *  from one console page to another (links.js). */
export const askedLanguage = supported(new URLSearchParams(location.search).get("lang"));

/** The catalogue, filled by loadStrings() before anything is shown. */
export const strings = {};

export async function loadStrings() {
  const path = `./i18n/${language}.js`;
  // Once more on a network hiccup (another URL: a failed module load may stay cached).
  const catalogue = await import(path).catch(() => import(`${path}?again`));
  Object.assign(strings, catalogue.default);
}

/** Words for the static page's `data-i18n` (text) and `data-i18n-label` (aria-label) keys. */
export function translatePage() {
  document.documentElement.lang = language;
  document.title = strings.page.title;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = strings.page[element.dataset.i18n] ?? "";
  }
  for (const element of document.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", strings.page[element.dataset.i18nLabel] ?? "");
  }
  updateLanguageSwitch();
}

/** Points the language link at this page (address and query as they are now) in the other
 *  language; called again whenever the queue changes the address. */
export function updateLanguageSwitch() {
  const other = language === "hi" ? "en" : "hi";
  const query = new URLSearchParams(location.search);
  query.set("lang", other);
  const link = document.getElementById("language-switch");
  link.href = `${location.pathname}?${query}`;
  link.lang = link.hreflang = other;
  link.textContent = catalogues[other];
}
