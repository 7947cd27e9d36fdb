// Where and when the request to continue came from, as the phone shows it above the question:
// the computer's browser and operating system (the server's coarse reading of its User-Agent;
// either may be unknown) and the time it asked, in this page's language and the device's time
// zone. "Requested from Chrome on Windows at 19:40."
import { language } from "../common/language.js";
import { strings } from "./strings.js";

/** The browser's own locale when it speaks the page's language ("en-GB" for 19:40), else the
 *  page's language: the page's words and the clock's format stay one language. */
function timeLocale() {
  const preferred = navigator.languages || [navigator.language];
  return preferred.find((tag) => String(tag || "").toLowerCase().split("-")[0] === language) || language;
}

function clockTime(timestamp) {
  const moment = Date.parse(timestamp);
  if (typeof timestamp !== "string" || !Number.isFinite(moment)) return "";
  try {
    // One unbroken "7:40 PM": the line may wrap, never inside the time.
    return new Intl.DateTimeFormat(timeLocale(), { hour: "numeric", minute: "2-digit" }).format(new Date(moment)).replace(/\s/g, "\u00a0");
  } catch {
    return new Date(moment).toTimeString().slice(0, 5);
  }
}

/** A name the server gave, or null: only short text is shown. */
function name(value) {
  return typeof value === "string" && value.trim() && value.length <= 40 ? value.trim() : null;
}

/** `{browser, os, created_at}` as the page keeps it (anything else becomes null). */
export function cleanContext(context) {
  const given = context && typeof context === "object" ? context : {};
  return {
    browser: name(given.browser),
    os: name(given.os),
    created_at: typeof given.created_at === "string" ? given.created_at : null,
  };
}

/** The sentence for a context, or "" when there is nothing to say. */
export function contextLine(context) {
  const { browser, os, created_at: createdAt } = cleanContext(context);
  const time = clockTime(createdAt);
  if (!browser && !os && !time) return "";
  return strings.continuation.context({ browser, os, time });
}
