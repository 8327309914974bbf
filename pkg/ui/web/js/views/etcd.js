// The etcd panel: what the apiserver keeps in etcd, read through its debug
// API — the same routes and the same CHANGE column as `ctl etcd ls` and
// `ctl etcd history KEY` (pkg/ui/panel_etcd.go, pkg/debug/etcdhistory).
// It polls its routes, at most once a second, only while it is on screen
// and only after the stream reported a change.
import { h } from "../dom.js";

const explanation =
  "Every object is one etcd key, /registry/<resource>/<namespace>/<name>, and etcd numbers each write " +
  "with a revision that counts every write in the whole store. An object's resourceVersion is simply the " +
  "revision of its key's last write (MOD-REV), so kubectl's resourceVersion and etcd's revision are the same number.";

let lastFetch = 0;
let busy = false;
let dirty = true;
let keysView = null;
let historyView = null;
let historyUID = null;
let problem = null;

async function getJSON(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.message || `${response.status}`);
  return body;
}

async function refresh(state, container) {
  busy = true;
  lastFetch = Date.now();
  dirty = false;
  const item = state.selected && state.objects.get(state.selected);
  // The server turns the uid into the key: only it knows whether a kind
  // is a custom resource, kept under /registry/<group>/<plural>/.
  historyUID = item ? item.uid : null;
  try {
    keysView = await getJSON("/api/debug/etcd/keys");
    historyView = historyUID ? await getJSON(`/api/debug/etcd/history?uid=${encodeURIComponent(historyUID)}`) : null;
    if (historyView) historyView.uid = historyUID;
    problem = null;
  } catch (err) {
    problem = err.message;
  } finally {
    busy = false;
  }
  draw(state, container);
}

// renderEtcd notes that the cluster changed and, while the panel is on
// screen, fetches again once the last fetch is a second old. Whether the
// panel is on screen comes from an IntersectionObserver: asking the layout
// (getBoundingClientRect) at every render would force the browser to lay
// out the whole page — a thousand pod chips — once per frame.
export function renderEtcd(state, container) {
  dirty = true;
  if (!container.firstChild) draw(state, container);
  if (!observed) {
    observed = true;
    new IntersectionObserver((entries) => {
      onScreen = entries.some((entry) => entry.isIntersecting);
      poll(state, container);
    }).observe(container);
  }
  poll(state, container);
}

let observed = false;
let onScreen = false;
let timer = null;

// poll keeps at most one timer: it fires a second after the last fetch and
// fetches if the cluster changed meanwhile and the panel is still on screen.
function poll(state, container) {
  if (busy || !dirty || !onScreen || timer !== null) return;
  timer = setTimeout(() => {
    timer = null;
    if (busy || !dirty || !onScreen) return;
    refresh(state, container).then(() => poll(state, container));
  }, Math.max(0, lastFetch + 1000 - Date.now()));
}

function draw(state, container) {
  const item = state.selected && state.objects.get(state.selected);
  const children = [
    h("p", { class: "explain" }, explanation),
    h("p", { class: "muted" }, "The same, in a terminal: ", h("code", {}, "ctl etcd ls"), " and ", h("code", {}, "ctl etcd history KEY"), "."),
  ];
  if (problem) children.push(h("p", { class: "error", role: "alert" }, "⚠ ", problem));
  if (keysView) {
    children.push(h("p", { class: "etcd-revision" }, "Current revision: ", h("strong", { "data-revision": keysView.revision }, String(keysView.revision)),
      ` — ${keysView.keys.length} keys under ${keysView.prefix}`));
    children.push(h("table", { class: "etcd-prefixes" },
      h("thead", {}, h("tr", {}, h("th", {}, "prefix"), h("th", {}, "keys"))),
      h("tbody", {}, keysView.prefixes.map((p) => h("tr", {}, h("td", {}, h("code", {}, p.prefix)), h("td", {}, String(p.count)))))));
  }
  if (!item) {
    children.push(h("p", { class: "muted" }, "Select an object to see its key and its MVCC history."));
  } else if (historyView && historyView.uid === item.uid) {
    children.push(renderHistory(historyView, item));
  }
  container.replaceChildren(...children);
}

function renderHistory(view, item) {
  const rv = (item.object.metadata || {}).resourceVersion;
  const rows = view.revisions.map((r, i) => h("tr", { "data-revision": r.revision, class: r.resourceVersion === rv ? "current" : null },
    h("td", {}, String(r.revision)),
    h("td", {}, r.resourceVersion, r.resourceVersion === rv ? " ◀ kubectl's resourceVersion now" : ""),
    h("td", {}, r.event),
    h("td", {}, String(r.version || "")),
    h("td", {}, view.changes[i])));
  return h("div", { class: "etcd-history" },
    h("h3", {}, "Key ", h("code", { class: "etcd-key" }, view.key)),
    view.compactRevision ? h("p", { class: "muted" }, `etcd forgot every revision before ${view.compactRevision} (compaction).`) : null,
    h("table", {},
      h("thead", {}, h("tr", {}, ["revision", "resourceVersion", "event", "version", "change"].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows)));
}
