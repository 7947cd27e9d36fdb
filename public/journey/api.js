// Calls to the journey API under /j/{id}/api. The session cookie travels by itself (same
// origin); the browser adds the Origin header the server checks on POSTs. Every call resolves
// to {status, body}, never rejects; status 0 means the network failed.

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
        body = JSON.parse(request.responseText) || {};
      } catch { /* an empty or non-JSON answer */ }
      resolve({ status: request.status, body });
    };
    request.onerror = request.onabort = request.ontimeout = () => resolve({ status: 0, body: {} });
    request.send(blob);
  });
}
