// Leaving for an address the server gave (DigiLocker, the customer's return URL): web
// addresses only, never `javascript:` or the like. False, and no navigation, otherwise.
export function goTo(value) {
  let url;
  try {
    url = new URL(value, location.href);
  } catch {
    return false;
  }
  if (!value || (url.protocol !== "https:" && url.protocol !== "http:")) return false;
  location.assign(url.href);
  return true;
}
