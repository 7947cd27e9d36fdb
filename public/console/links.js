// Addresses of console pages, keeping the language the address asked for (`?lang=`).
import { askedLanguage } from "./strings.js";

/** `path` with the query `params` (empty values left out) and the asked language. */
export function consoleHref(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value) query.set(name, value);
  }
  if (askedLanguage) query.set("lang", askedLanguage);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export function verificationHref(id) {
  return consoleHref(`/console/verifications/${encodeURIComponent(id)}`);
}

// The queue's filters, remembered for this tab so the detail's back link returns to them.
const QUEUE_KEY = "hosted_console_queue";

export function rememberQueueFilters(filters) {
  try {
    sessionStorage.setItem(QUEUE_KEY, JSON.stringify(filters));
  } catch { /* storage refused: the back link shows the default queue */ }
}

export function queueHref() {
  let filters = {};
  try {
    const saved = JSON.parse(sessionStorage.getItem(QUEUE_KEY) || "{}");
    if (saved && typeof saved === "object") filters = saved;
  } catch { /* nothing usable saved */ }
  const { status, workflow, user_id: userId } = filters;
  return consoleHref("/console", {
    status: typeof status === "string" ? status : "",
    workflow: typeof workflow === "string" ? workflow : "",
    user_id: typeof userId === "string" ? userId : "",
  });
}
