// Timeline: the cluster's Events and the writes every component made, in
// one list in time order, and a slider to scrub back through it. Each
// component's debug journal records every write it sends (who, verb,
// object, and the resourceVersion the apiserver answered — etcd's
// revision of the object's key); the server pairs them with the
// apiserver's record of storing them, adds the Events, and orders the lot
// with the code `ctl timeline` prints it with (pkg/ui/panel_timeline.go,
// pkg/debug/timeline). Moving the slider to a write shows the object as
// etcd stored it at that revision, and what that write changed.
//
// The panel polls its route once a second while it is on screen (poll.js),
// and not at all while scrubbed back: the list holds still under the
// slider until "Live" is pressed.
import { h } from "../dom.js";
import { fetchJSON, pollWhileVisible } from "../poll.js";

const explanation =
  "Controllers, the scheduler and the kubelets record Events about what they do, and every component's " +
  "journal records each API write it makes. Here both are merged in time order: who wrote (component/actor), " +
  "the verb, the object and the resourceVersion the write produced — etcd's revision of the object's key. " +
  "Drag the slider (or press ← →) to go back to any entry: the list stops there and, for a write, the object " +
  "is shown as etcd stored it at that revision, with the diff from the revision before. etcd compaction " +
  "removes old revisions, so an object's state can only be shown back to the last compaction. " +
  "The list keeps the newest 500 entries and leaves out Lease renewals (see Leader election).";

// view is the panel's state: the last answer, where the slider stands,
// and the object state loaded for it.
const view = {
  answer: null,
  problem: null,
  live: true,
  position: 0,
  kinds: { event: true, write: true },
  selectedOnly: false,
  selectedUID: null,
  objectFilter: "",
  shownState: null, // { id, answer, error }
};
let parts = null;

// renderTimeline builds the panel once, then follows the selected object
// (for "only the selected object").
export function renderTimeline(state, container) {
  if (!parts) parts = build(container);
  const uid = state.selected || null;
  if (uid !== view.selectedUID) {
    view.selectedUID = uid;
    if (view.selectedOnly && view.live) load();
  }
}

function build(container) {
  const section = container.closest("section");
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", class: "timeline-slider",
    "aria-label": "scrub back through the timeline", oninput: () => scrubTo(Number(slider.value)) });
  const liveButton = h("button", { type: "button", class: "timeline-live", onclick: goLive }, "● Live");
  const position = h("span", { class: "timeline-position", role: "status" });
  const checkbox = (label, checked, onchange) =>
    h("label", {}, h("input", { type: "checkbox", ...(checked ? { checked: "" } : {}), onchange }), " ", label);
  const objectInput = h("input", { type: "search", class: "timeline-object", placeholder: "namespace/name or uid",
    "aria-label": "only entries about this object", oninput: () => { view.objectFilter = objectInput.value.trim(); draw(); } });
  const list = h("ol", { class: "timeline" });
  const state = h("div", { class: "timeline-state" });
  const problem = h("p", { class: "error", role: "alert", hidden: "" });
  const omitted = h("p", { class: "muted timeline-omitted" });
  container.replaceChildren(
    h("p", { class: "explain" }, explanation),
    h("p", { class: "muted" }, "The same, in a terminal: ", h("code", {}, "ctl timeline --since 10m"), " (or ",
      h("code", {}, "--for TYPE/NAME"), "), and ", h("code", {}, "ctl etcd history KEY"), " for an object's revisions."),
    h("div", { class: "timeline-filters" },
      checkbox("Events", true, (e) => { view.kinds.event = e.target.checked; load(); }),
      checkbox("writes", true, (e) => { view.kinds.write = e.target.checked; load(); }),
      checkbox("only the selected object and what it owns", false, (e) => { view.selectedOnly = e.target.checked; load(); }),
      objectInput),
    h("div", { class: "timeline-scrubber" }, slider, liveButton, position),
    problem, omitted,
    h("div", { class: "timeline-columns" }, list, state));
  // ← → move the slider one entry from anywhere in the panel.
  section.addEventListener("keydown", (event) => {
    if (event.target === slider || event.target === objectInput) return; // the slider moves itself
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    scrubTo(Number(slider.value) + (event.key === "ArrowLeft" ? -1 : 1));
  });
  section.tabIndex = 0;
  pollWhileVisible(section, () => (view.live ? load() : Promise.resolve()));
  return { slider, liveButton, position, list, state, problem, omitted };
}

// entriesShown are the answer's entries that pass the object filter.
function entriesShown() {
  const entries = (view.answer && view.answer.entries) || [];
  const filter = view.objectFilter;
  if (!filter) return entries;
  return entries.filter((e) => e.uid === filter || `${e.namespace ? e.namespace + "/" : ""}${e.name}` === filter);
}

async function load() {
  const kinds = Object.keys(view.kinds).filter((k) => view.kinds[k]);
  if (kinds.length === 0) {
    view.answer = { entries: [] };
    draw();
    return;
  }
  const query = new URLSearchParams({ kinds: kinds.join(",") });
  if (view.selectedOnly && view.selectedUID) query.set("uid", view.selectedUID);
  try {
    const answer = await fetchJSON(`/api/debug/timeline?${query}`);
    if (!view.live) return; // scrubbed back while the answer was on its way
    view.answer = answer;
    view.problem = null;
  } catch (err) {
    view.problem = err.message;
  }
  draw();
}

function goLive() {
  view.live = true;
  view.shownState = null;
  load();
}

function scrubTo(index) {
  const entries = entriesShown();
  if (entries.length === 0) return;
  view.live = false;
  view.position = Math.max(0, Math.min(entries.length - 1, index));
  draw();
}

function draw() {
  if (!parts) return;
  const entries = entriesShown();
  if (view.live) view.position = entries.length - 1;
  view.position = Math.max(0, Math.min(view.position, entries.length - 1));
  const { slider, liveButton, position, list, problem, omitted } = parts;
  slider.max = String(Math.max(0, entries.length - 1));
  slider.value = String(view.position);
  slider.disabled = entries.length === 0;
  liveButton.setAttribute("aria-pressed", view.live ? "true" : "false");
  const current = entries[view.position];
  position.textContent = entries.length === 0 ? "no entries yet"
    : `${view.live ? "live" : "scrubbed back"}: entry ${view.position + 1} of ${entries.length}` +
      (current ? `, ${clockTime(current.time)}` : "");
  problem.hidden = !view.problem;
  problem.textContent = view.problem ? `⚠ ${view.problem}` : "";
  const answer = view.answer || {};
  omitted.textContent = [
    answer.omitted ? `${answer.omitted} older entries not shown (the newest ${answer.limit} are).` : "",
    ...(answer.warnings || []).map((w) => `⚠ ${w}`),
  ].filter(Boolean).join(" ");

  // The list up to the slider's entry, newest at the bottom.
  list.replaceChildren(...entries.slice(0, view.position + 1).map((e, i) => entryItem(e, i, i === view.position)));
  // The slider's entry is the list's last: keep it in sight (scrolling
  // the list only, never the page).
  list.scrollTop = list.scrollHeight;
  drawState(current);
}

// entryItem is one line: time, a shape for its kind, who, what, the
// object and its resourceVersion, and an Event's message.
function entryItem(e, index, isCurrent) {
  const event = e.kind === "event";
  return h("li", {
    class: `timeline-entry ${e.kind}${e.type === "Warning" ? " warning" : ""}`,
    "data-index": index, "data-kind": e.kind, "data-verb": e.verb || null, "data-reason": e.reason || null,
    "data-component": e.component || null, "data-object": objectName(e), "data-rv": e.resourceVersion || null,
    "aria-current": isCurrent ? "true" : null,
    onclick: () => scrubTo(index),
  },
  h("span", { class: "timeline-time" }, clockTime(e.time)), " ",
  // The shape says the kind without colour: ◆ an Event (⚠ a Warning), ✎ a write.
  h("span", { class: "timeline-mark", "aria-hidden": "true" }, event ? (e.type === "Warning" ? "⚠" : "◆") : "✎"), " ",
  h("span", { class: "timeline-who" }, who(e)), " ",
  h("span", { class: "timeline-what" }, event ? `${e.type} ${e.reason}` : e.verb), " ",
  h("span", { class: "kind" }, objectName(e)),
  e.resourceVersion && !event ? h("span", { class: "muted" }, ` rv=${e.resourceVersion}`) : null,
  event ? h("div", { class: "timeline-message" }, e.message, e.count > 1 ? ` (×${e.count})` : "") : null,
  !event && e.user && e.component !== "apiserver" ? h("span", { class: "muted" }, ` as ${e.user}`) : null);
}

// drawState shows, for the entry under the slider, the object as of that
// write (fetched once per entry) and the diff from the revision before.
function drawState(entry) {
  const target = parts.state;
  if (!entry) {
    target.replaceChildren();
    return;
  }
  if (entry.kind !== "write" || !entry.etcdKey || !entry.resourceVersion || entry.verb === "delete") {
    target.replaceChildren(h("h3", {}, "At this entry"),
      h("p", { class: "muted" }, entry.kind === "event"
        ? `An Event about ${objectName(entry)}: ${entry.message}. Move to a write to see an object's state.`
        : "This write left no revision to show."));
    return;
  }
  if (!view.shownState || view.shownState.id !== entry.id) {
    view.shownState = { id: entry.id, answer: null, error: null };
    const query = new URLSearchParams({ key: entry.etcdKey, rv: entry.resourceVersion });
    fetchJSON(`/api/debug/timeline/state?${query}`)
      .then((answer) => { if (view.shownState.id === entry.id) view.shownState.answer = answer; })
      .catch((err) => { if (view.shownState.id === entry.id) view.shownState.error = err.message; })
      .then(() => drawState(entriesShown()[view.position]));
  }
  const { answer, error } = view.shownState;
  const heading = h("h3", {}, `${objectName(entry)} at resourceVersion ${entry.resourceVersion}`);
  if (error) {
    target.replaceChildren(heading, h("p", { class: "muted timeline-state-error" }, "⚠ ", error));
  } else if (!answer) {
    target.replaceChildren(heading, h("p", { class: "muted" }, "loading…"));
  } else {
    const changed = answer.diff ? answer.diff.filter((l) => l.op !== " ") : [];
    target.replaceChildren(heading,
      h("p", { class: "muted" }, `etcd key ${answer.key}, ${answer.event || "kept at compaction"}`,
        answer.previousResourceVersion ? `; changes from resourceVersion ${answer.previousResourceVersion}:` : "; nothing before it is kept."),
      changed.length > 0
        ? h("pre", { class: "diff" }, changed.map((l) => h("div", { class: l.op === "+" ? "diff-add" : "diff-del" }, `${l.op} ${l.text}`)))
        : null,
      h("pre", { class: "yaml-text timeline-yaml" }, answer.yaml));
  }
}

function who(e) {
  if (e.kind === "event" || !e.actor) return e.component || "";
  return e.component === "apiserver" ? e.actor : `${e.component}/${e.actor}`;
}

function objectName(e) {
  const name = e.namespace ? `${e.namespace}/${e.name}` : e.name;
  return e.kind === "event" ? `${e.objectKind}/${name}` : `${e.resource}/${name}`;
}

function clockTime(iso) {
  const t = new Date(iso);
  return t.toLocaleTimeString([], { hour12: false }) + "." + String(t.getMilliseconds()).padStart(3, "0");
}
