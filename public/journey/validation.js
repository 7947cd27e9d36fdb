// The profile form's rules, as the server applies them. Each check answers a key of
// `strings.profile` naming the problem, or "".

/** Today where the user is, as YYYY-MM-DD. */
export function today(now = new Date()) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The same day 130 years before `day` (the oldest date of birth accepted). */
export function oldestAllowed(day) {
  return String(Number(day.slice(0, 4)) - 130).padStart(4, "0") + day.slice(4);
}

/** True for a YYYY-MM-DD day that exists (no 2023-02-30). */
export function isRealDate(value) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function checkName(value) {
  const name = value.trim();
  if (!name) return "nameMissing";
  return [...name].length > 200 ? "nameTooLong" : "";
}

export function checkDateOfBirth(value, day = today()) {
  if (!value) return "dateMissing";
  if (!isRealDate(value)) return "dateInvalid";
  if (value > day) return "dateFuture";
  return value < oldestAllowed(day) ? "dateTooOld" : "";
}
