// Calls to the journey API under /j/{id}/api. The session cookie travels by itself (same
// origin); the browser adds the Origin header the server checks on POSTs. Every call resolves
// to a result (see `result`), never rejects; status 0 means the network failed.

/** The server's resend cooldown: one code per 30 s per verification. */
export const RESEND_COOLDOWN_SECONDS = 30;

export function verificationId() {
  const match = location.pathname.match(/^\/j\/([^/]+)/);
  return match ? match[1] : "";
}

function base() {
  return `/j/${encodeURIComponent(verificationId())}/api`;
}

export function stepPath(stepId, rest) {
  return `/steps/${encodeURIComponent(stepId)}${rest}`;
}

/** {status, body, code, errors, retryAfter}: `code` and `errors` are an RFC 9457 problem's
 *  (`code` undefined and `errors` empty otherwise); messages.js turns them into words. */
function result(status, body, retryAfter = null) {
  const parsed = body && typeof body === "object" ? body : {};
  return {
    status,
    body: parsed,
    code: typeof parsed.code === "string" ? parsed.code : undefined,
    errors: Array.isArray(parsed.errors) ? parsed.errors.filter((error) => error && typeof error === "object") : [],
    retryAfter,
  };
}

/** Sends `body` (if any) as JSON to `path`; resolves to a result. `signal` (an AbortSignal)
 *  drops the call, which then resolves as a failed network (status 0). */
export async function call(method, path, body, signal) {
  const options = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
  if (signal) options.signal = signal;
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(base() + path, options);
  } catch {
    return result(0);
  }
  let parsed = {};
  try {
    parsed = await response.json();
  } catch {
    parsed = {};
  }
  return result(response.status, parsed, response.headers.get("Retry-After"));
}

/** POSTs `blob` as the raw body with XMLHttpRequest, for its upload progress (0..1). */
export function upload(path, blob, onProgress) {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open("POST", base() + path);
    request.setRequestHeader("Content-Type", blob.type || "image/jpeg");
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let body = {};
      try {
        body = JSON.parse(request.responseText);
      } catch { /* an empty or non-JSON answer */ }
      resolve(result(request.status, body, request.getResponseHeader("Retry-After")));
    };
    request.onerror = request.onabort = request.ontimeout = () => resolve(result(0));
    request.send(blob);
  });
}
