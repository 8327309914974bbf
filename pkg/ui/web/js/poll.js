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
