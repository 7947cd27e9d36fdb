// Calls to the journey API under /j/{id}/api. The session cookie travels by itself
// (same origin); the browser adds the Origin header the server checks on POSTs.

export function verificationId() {
  const match = location.pathname.match(/^\/j\/([^/]+)/);
  return match ? match[1] : "";
}

function base() {
  return `/j/${encodeURIComponent(verificationId())}/api`;
}

export async function call(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(base() + path, options);
  } catch {
    return { status: 0, body: {} };
  }
  let parsed = {};
  try {
    parsed = await response.json();
  } catch {
    parsed = {};
  }
  return { status: response.status, body: parsed, retryAfter: response.headers.get("Retry-After") };
}
