// The computer after the phone said "This wasn't me" (`body[data-state=blocked]`): the link is
// burnt, and the server makes no new one for a pause (a minute; `blocked_seconds` while
// following, `Retry-After` on a refused create). This screen says why, counts the pause down,
// and only then offers a new code: never by itself, the user decides.
import { announce, errorLine, focusHeading, h, heading, setMessage } from "./dom.js";
import { show } from "./screens.js";
import { strings } from "./strings.js";

/** {until, timer, wait, fresh, error}: the pause shown now, or null. */
let pause = null;

function secondsLeft() {
  return Math.max(0, Math.ceil((pause.until - Date.now()) / 1000));
}

/** Once a second: the count, then (at 0) the button and a word for screen readers. */
function tick() {
  const left = secondsLeft();
  if (left > 0) {
    pause.wait.textContent = strings.continuation.blockedWait(left);
    pause.fresh.hidden = true;
    return;
  }
  clearInterval(pause.timer);
  pause.timer = null;
  pause.wait.textContent = strings.continuation.blockedReady;
  if (pause.fresh.hidden) {
    pause.fresh.hidden = false;
    announce(strings.continuation.blockedReady);
  }
}

function build(makeNew, hereButton) {
  const text = strings.continuation;
  const section = document.getElementById("blocked");
  const error = errorLine();
  const view = {
    wait: h("p", { className: "note warning", dataset: { testid: "blocked-wait" } }),
    fresh: h("button", { type: "button", hidden: true, dataset: { testid: "continuation-new" } }, text.newCode),
    error,
  };
  view.fresh.addEventListener("click", async () => {
    view.fresh.disabled = true;
    setMessage(view.error, "");
    await makeNew();
    view.fresh.disabled = false;
  });
  section.replaceChildren(heading(text.blockedTitle, "blocked-title"), h("p", {}, text.blockedIntro),
    view.wait, view.fresh, error, hereButton(error));
  return { section, view };
}

/** Shows the pause with `seconds` left (`makeNew()` on the button; `hereButton(errorLine)`
 *  builds "Continue on this device instead"). Called again while it shows, it moves the count:
 *  to a refused create's `Retry-After` (`exact`, the server's word now), or to a poll's
 *  `blocked_seconds` only when that is sooner (a long-poll answer may be as old as its wait). */
export function showBlocked(seconds, makeNew, hereButton, exact = false) {
  const until = Date.now() + Math.max(0, Math.min(3600, Math.round(Number(seconds) || 0))) * 1000;
  if (!pause) {
    const { section, view } = build(makeNew, hereButton);
    pause = { ...view, timer: null, until };
    show("blocked");
    focusHeading(section);
  } else {
    pause.until = exact ? until : Math.min(pause.until, until);
  }
  if (!pause.timer) pause.timer = setInterval(tick, 1000);
  tick();
}

/** Why the new code asked for on this screen could not be made (offline, say). */
export function blockedError(message) {
  if (pause) setMessage(pause.error, message);
}

/** Takes the blocked screen away (a new code was made, or the journey moved on). */
export function endBlocked() {
  if (!pause) return;
  clearInterval(pause.timer);
  pause = null;
  document.getElementById("blocked").replaceChildren();
}
