// pollWhileVisible is how a panel on the machinery stays live without a
// stream of its own: it calls load() at once, then again `interval` ms
// after each answer — so never more than one request at a time, and about
// one a second — but only while the panel is on screen and the tab is
// visible. A panel nobody looks at costs the components nothing.
export function pollWhileVisible(section, load, interval = 1000) {
  let onScreen = false;
  let timer = null;
  let loading = false;
  const active = () => onScreen && document.visibilityState === "visible";

  const schedule = (delay) => {
    if (timer !== null || loading || !active()) return;
    timer = setTimeout(tick, delay);
  };
  const tick = async () => {
    timer = null;
    if (!active()) return;
    loading = true;
    try {
      await load();
    } catch (err) {
      console.warn(`${section.id}: ${err.message}`);
    } finally {
      loading = false;
    }
    schedule(interval);
  };

  new IntersectionObserver((entries) => {
    onScreen = entries.some((entry) => entry.isIntersecting);
    schedule(0);
  }).observe(section);
  document.addEventListener("visibilitychange", () => schedule(0));
}

// fetchJSON gets a panel's route and returns its JSON, or throws with the
// message of the Status the server answered (a 503 when the components'
// debug APIs cannot be reached says why).
export async function fetchJSON(path) {
  const response = await fetch(path);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.message || `${path}: ${response.status}`);
  return body;
}

// A panel that reads the components' debug APIs (the why and trace panels)
// polls its route for the selected object: every 2 s while it stays
// selected and the page is visible, at once when the selection changes.
// The server reads the journals again at each request (pkg/ui/panel_*.go).
export const pollInterval = 2000;

// SelectedPoller fetches `${prefix}/${uid}` for the selected uid and hands
// each answer (or error) to onAnswer(uid, answer, error).
export class SelectedPoller {
  constructor(prefix, onAnswer) {
    this.prefix = prefix;
    this.onAnswer = onAnswer;
    this.uid = null;
    this.timer = null;
  }

  // follow starts polling for uid (null stops).
  follow(uid) {
    if (uid === this.uid) return;
    this.uid = uid;
    clearInterval(this.timer);
    this.timer = null;
    if (!uid) return;
    this.fetch(uid);
    this.timer = setInterval(() => {
      if (!document.hidden) this.fetch(uid);
    }, pollInterval);
  }

  async fetch(uid) {
    let answer = null;
    let error = null;
    try {
      const response = await fetch(`${this.prefix}/${encodeURIComponent(uid)}`);
      const body = await response.json();
      if (response.ok) answer = body;
      else error = body.message || `HTTP ${response.status}`;
    } catch (e) {
      error = String(e);
    }
    if (uid === this.uid) this.onAnswer(uid, answer, error);
  }
}
