// The selected object: its conditions (status.conditions), the Events that
// involve it (matched by involvedObject.uid, as `kubectl describe` does),
// its YAML, and the diff of its last change. The server keeps the previous
// version of every object it has seen; /api/objects/{uid} renders both.
// The stream carries no Events (a thousand pods write thousands): the
// panel asks /api/events/{uid} for the selected object's, when it is
// selected and every 2 s after, as the why and trace panels poll theirs.
import { h } from "../dom.js";
import { objectKey } from "../state.js";
import { SelectedPoller } from "../poll.js";

// eventsBox holds the selected object's Events table; the poller fills it.
const eventsBox = h("div", { class: "events-box" });
const eventsPoller = new SelectedPoller("/api/events", (uid, answer, error) => {
  if (error) eventsBox.replaceChildren(h("p", { class: "muted" }, `could not load the Events: ${error}`));
  else eventsBox.replaceChildren(eventsTable(answer.events.sort((a, b) => eventTime(a.object).localeCompare(eventTime(b.object)))));
});

// shown is the object whose YAML the panel holds, and that YAML's element.
let shown = { uid: null, yaml: null };
// drawn is what the panel last drew: the selection and its object.
let drawn = { selected: undefined, item: undefined };

export function renderDetails(state, container, changedUIDs) {
  const item = state.selected && state.objects.get(state.selected);
  if (!concernsShown(state, item)) return; // a frame of other pods' changes
  drawn = { selected: state.selected, item };
  if (item && eventsPoller.uid !== item.uid) eventsBox.replaceChildren(h("p", { class: "muted" }, "loading…"));
  eventsPoller.follow(item ? item.uid : null);
  if (!item) {
    container.replaceChildren(h("p", { class: "muted" },
      state.selected ? "The selected object was deleted." : "Select a node, a pod or any object in the graph."));
    return;
  }
  // The YAML and diff are fetched only for the object shown, and again
  // when it changes; other renders reuse the element already loaded.
  if (shown.uid !== item.uid || changedUIDs.has(item.uid)) {
    shown = { uid: item.uid, yaml: h("div", { class: "yaml" }, h("p", { class: "muted" }, "loading…")) };
    loadYAML(item.uid, shown.yaml);
  }
  container.replaceChildren(
    h("p", {}, h("span", { class: "kind" }, item.kind), " ", h("strong", {}, objectKey(item)),
      h("span", { class: "muted" }, ` resourceVersion ${item.object.metadata.resourceVersion}`)),
    h("h3", {}, "Conditions"), conditionsTable(item.object),
    h("h3", {}, "Events"), eventsBox,
    shown.yaml,
  );
}

// concernsShown says whether this frame's changes touch what the panel
// shows: another selection, or the selected object itself. While a
// thousand pods start, most frames concern neither.
function concernsShown(state, item) {
  return state.selected !== drawn.selected || item !== drawn.item;
}

function conditionsTable(object) {
  const conditions = (object.status && object.status.conditions) || [];
  if (conditions.length === 0) return h("p", { class: "muted" }, "none");
  return h("table", { class: "conditions" },
    h("tr", {}, h("th", {}, "Type"), h("th", {}, "Status"), h("th", {}, "Reason"), h("th", {}, "Message")),
    conditions.map((c) => h("tr", {}, h("td", {}, c.type), h("td", {}, c.status), h("td", {}, c.reason || ""), h("td", {}, c.message || ""))));
}

function eventsTable(events) {
  if (events.length === 0) return h("p", { class: "muted events-empty" }, "none");
  return h("table", { class: "events" },
    h("tr", {}, h("th", {}, "Type"), h("th", {}, "Reason"), h("th", {}, "From"), h("th", {}, "Count"), h("th", {}, "Message")),
    events.map(({ object: e }) => h("tr", { "data-reason": e.reason },
      h("td", {}, e.type || ""), h("td", {}, e.reason || ""),
      h("td", {}, (e.source && e.source.component) || e.reportingComponent || ""),
      h("td", {}, e.count || 1), h("td", {}, e.message || ""))));
}

function eventTime(event) {
  return event.lastTimestamp || event.eventTime || event.metadata.creationTimestamp || "";
}

async function loadYAML(uid, target) {
  const response = await fetch(`/api/objects/${encodeURIComponent(uid)}`);
  if (!response.ok) {
    target.replaceChildren(h("p", { class: "muted" }, `could not load the YAML: ${response.status}`));
    return;
  }
  const detail = await response.json();
  const diff = detail.diff && detail.diff.length > 0
    ? h("pre", { class: "diff" }, detail.diff.filter(nearChange(detail.diff)).map((line) =>
        h("div", { class: line.op === "+" ? "diff-add" : line.op === "-" ? "diff-del" : "" }, `${line.op} ${line.text}`)))
    : h("p", { class: "muted" }, "This view has seen one version of the object so far.");
  target.replaceChildren(
    h("h3", {}, "Last change", detail.previousResourceVersion ? ` (from resourceVersion ${detail.previousResourceVersion})` : ""), diff,
    h("h3", {}, "YAML"), h("pre", { class: "yaml-text" }, detail.yaml));
}

// nearChange keeps the changed lines and three lines of context around
// each, as `diff -u` does.
function nearChange(lines) {
  const keep = new Set();
  lines.forEach((line, i) => {
    if (line.op === " ") return;
    for (let j = Math.max(0, i - 3); j <= Math.min(lines.length - 1, i + 3); j++) keep.add(j);
  });
  return (_, i) => keep.has(i);
}
