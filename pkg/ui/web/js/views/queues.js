// The Workqueues panel: every controller's workqueue in every component,
// as `ctl queues` prints it, and the last keys through each queue with
// their way queue → processing → done. The data is /api/debug/queues
// (pkg/ui/panel_queues.go): the live sets from each component's debug
// API, and the passages replayed from their journals (a key a worker
// handles in a millisecond is never caught in the live sets), polled
// while the panel is visible.
import { h } from "../dom.js";
import { fetchJSON, pollWhileVisible } from "../poll.js";
import { clockTime, formatDuration, parseTime } from "../duration.js";

const explanation = [
  "A controller's event handlers do no work: they put the object's key (namespace/name) into the controller's workqueue. ",
  "A worker takes a key (it moves from queue to processing), runs the controller's sync, and says done. ",
  "The queue holds a key once however often it is added, never gives one key to two workers — a key added while a worker holds it is marked dirty and queued again after done — and parks a key whose sync failed for a back-off retry (waiting). ",
  "The same from the command line: ", h("code", {}, "ctl queues -w"), " (", h("code", {}, "-o wide"), " for the keys) and ", h("code", {}, "ctl queues --history --queue deployment"), ".",
];

// Each step of a passage has a word and a shape, so no state is told by
// colour alone.
const stepMarkers = {
  queue: "◌",
  processing: "▶",
  sync: "⚙",
  dirty: "↺",
  waiting: "◔",
  done: "●",
};

// With every queue shown, each lists only its latest passages; choosing
// one queue shows all the server keeps.
const passagesPerQueueWhenAll = 3;

export function renderQueues(section) {
  const container = section.querySelector(".body");
  const filter = h("select", { id: "queues-filter", "aria-label": "show the queue" }, h("option", { value: "" }, "every queue"));
  const sets = h("div", { class: "queue-sets" }, h("p", { class: "muted" }, "loading…"));
  const passages = h("div", { class: "queue-passages" });
  container.replaceChildren(
    h("p", { class: "explain" }, explanation),
    h("label", {}, "Queue: ", filter),
    h("h3", {}, "Now: the queue's sets"), sets,
    h("h3", {}, "Last keys through the queue"), passages);

  const load = async () => {
    const queue = filter.value;
    try {
      const answer = await fetchJSON(`/api/debug/queues${queue ? `?queue=${encodeURIComponent(queue)}` : ""}`);
      if (queue !== filter.value) return; // the student chose another queue meanwhile
      updateFilter(filter, answer.components);
      sets.replaceChildren(setsTables(answer.components, queue));
      passages.replaceChildren(passagesList(answer.passages, queue));
    } catch (err) {
      sets.replaceChildren(h("p", { class: "muted" }, `✖ ${err.message}`));
    }
  };
  filter.addEventListener("change", () => {
    passages.replaceChildren(h("p", { class: "muted" }, "loading…"));
    load();
  });
  pollWhileVisible(section, load);
}

// updateFilter offers every queue name the components report.
function updateFilter(filter, components) {
  const names = new Set();
  for (const c of components) for (const q of c.queues) names.add(q.name);
  const offered = new Set([...filter.options].map((o) => o.value));
  for (const name of [...names].sort()) {
    if (!offered.has(name)) filter.append(h("option", { value: name }, name));
  }
}

function setsTables(components, queue) {
  const withQueues = components.filter((c) => c.error || c.queues.some((q) => !queue || q.name === queue));
  const without = components.filter((c) => !c.error && c.queues.length === 0).map((c) => c.component);
  return h("div", {},
    withQueues.map((c) => h("div", { class: "queue-component", "data-component": c.component },
      h("h4", {}, c.component),
      c.error ? h("p", { class: "muted" }, `✖ did not answer: ${c.error}`) : setsTable(c, queue))),
    !queue && without.length > 0 ? h("p", { class: "muted" }, `No workqueues in: ${without.join(", ")}`) : null);
}

// setsTable is one component's queues. A key's age is measured on the
// component's clock (q.now), which a virtual cluster clock may have moved.
function setsTable(component, queue) {
  const rows = component.queues.filter((q) => !queue || q.name === queue);
  return h("table", { class: "queue-sets-table" },
    h("tr", {}, ["Queue", "Depth", "Dirty", "Processing", "Waiting", "Retries", "Oldest"].map((title) => h("th", {}, title))),
    rows.map((q) => {
      const keys = [...(q.queued || []), ...(q.dirty || []), ...(q.processing || []), ...(q.waiting || [])];
      const retries = keys.reduce((sum, k) => sum + (k.retries || 0), 0);
      const head = (q.queued || [])[0];
      const now = Date.parse(q.now);
      return h("tr", { "data-queue": q.name, "data-depth": q.depth, class: q.depth + (q.processing || []).length > 0 ? "queue-busy" : "" },
        h("td", {}, q.name), h("td", {}, q.depth),
        h("td", { title: keyNames(q.dirty) }, (q.dirty || []).length),
        h("td", { title: keyNames(q.processing) }, (q.processing || []).length),
        h("td", { title: keyNames(q.waiting) }, (q.waiting || []).length),
        h("td", {}, retries),
        h("td", {}, head ? `${head.key}${head.since ? ` (${formatDuration(now - Date.parse(head.since))})` : ""}` : "-"));
    }));
}

const keyNames = (keys) => (keys || []).map((k) => k.key).join(", ");

// passagesList groups the passages by component and queue, newest first.
function passagesList(passages, queue) {
  if (passages.length === 0) {
    return h("p", { class: "muted" }, "No key has gone through yet. Try kubectl scale deployment ng-dep --replicas=3");
  }
  const groups = new Map();
  for (const p of passages) {
    const group = `${p.component} / ${p.queue}`;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(p);
  }
  return h("div", {}, [...groups].map(([group, list]) => {
    const newest = list.slice().reverse().slice(0, queue ? list.length : passagesPerQueueWhenAll);
    return h("div", { class: "queue-group" },
      h("h4", {}, group),
      h("ol", { class: "passages" }, newest.map(passageItem)));
  }));
}

// failed is a sync that returned an error: the key is retried with
// back-off (its next step is "waiting").
const failed = (step) => step.state === "sync" && (step.detail || "").startsWith("error");

function passageItem(passage) {
  const start = parseTime(passage.steps[0].time);
  return h("li", {
    class: "passage", "data-component": passage.component, "data-queue": passage.queue, "data-key": passage.key,
    "data-finished": passage.finished ? "true" : "false",
  },
  h("strong", { class: "passage-key" }, passage.key), " ",
  h("span", { class: "muted" }, clockTime(passage.steps[0].time)), " ",
  passage.steps.flatMap((step, i) => [
    i > 0 ? h("span", { class: "arrow", "aria-hidden": "true" }, " → ") : null,
    h("span", { class: `step step-${step.state}${failed(step) ? " step-failed" : ""}`, "data-state": step.state, "data-seq": step.seq, title: step.detail || "" },
      h("span", { class: "step-marker", "aria-hidden": "true" }, failed(step) ? "✖" : stepMarkers[step.state] || "?"), " ", step.state,
      step.state === "sync" && step.detail ? ` ${step.detail}` : "",
      i > 0 ? h("span", { class: "muted" }, ` +${formatDuration(parseTime(step.time) - start)}`) : null),
  ]),
  passage.deduplicated ? h("span", { class: "muted" }, ` (${passage.deduplicated} more add${passage.deduplicated === 1 ? "" : "s"} deduplicated)`) : null,
  passage.finished ? null : h("span", { class: "muted" }, " … in flight"));
}
