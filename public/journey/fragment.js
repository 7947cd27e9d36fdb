// Runs first, before the page is even parsed (a classic, blocking script): takes the handoff
// secret out of the address bar so it is never bookmarked, synced, shared or shown, and keeps
// it only in memory for main.js to exchange once.
(function () {
  "use strict";
  if (!location.hash) return;
  var secret = new URLSearchParams(location.hash.slice(1)).get("handoff");
  history.replaceState(null, "", location.pathname + location.search);
  if (secret) {
    Object.defineProperty(window, "hostedHandoff", { value: secret, configurable: true, enumerable: false });
  }
})();
