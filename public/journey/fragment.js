// Runs first, before the page is even parsed (a classic, blocking script): takes the handoff
// secret (`#handoff=`) or the continuation secret (`#continue=`, a journey continued from
// another device) out of the address bar so it is never bookmarked, synced, shared or shown,
// and keeps it only in memory for main.js to exchange once.
(function () {
  "use strict";
  if (!location.hash) return;
  var fragment = new URLSearchParams(location.hash.slice(1));
  var secrets = { hostedHandoff: fragment.get("handoff"), hostedContinuation: fragment.get("continue") };
  history.replaceState(null, "", location.pathname + location.search);
  for (var name in secrets) {
    if (secrets[name]) {
      Object.defineProperty(window, name, { value: secrets[name], configurable: true, enumerable: false });
    }
  }
})();
