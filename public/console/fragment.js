// Runs first, before the page is even parsed (a classic, blocking script): on the setup page,
// takes the setup secret out of the address bar (`#token=…`) so it is never bookmarked, synced,
// shared or shown, and keeps it for setup.js. sessionStorage (this tab only, gone when it
// closes) lets a reload or a language switch of the setup page still finish the setup; where
// storage is refused, a window property keeps it for this page load.
(function () {
  "use strict";
  var path = location.pathname.replace(/\/+$/, "");
  if (path !== "/console/setup" || !location.hash) return;
  // Read by hand, not with URLSearchParams, which would turn a "+" of the token into a space.
  var match = /(?:^|&)token=([^&]*)/.exec(location.hash.slice(1));
  var token = match ? match[1] : "";
  try {
    token = decodeURIComponent(token);
  } catch (error) { /* not percent-encoded: taken as it is */ }
  history.replaceState(null, "", location.pathname + location.search);
  if (!token) return;
  try {
    sessionStorage.setItem("hosted_console_setup", token);
  } catch (error) {
    Object.defineProperty(window, "hostedConsoleSetup", { value: token, writable: true, configurable: true, enumerable: false });
  }
})();
