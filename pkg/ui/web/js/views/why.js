// Why: the decisions the control plane recorded about the selected object.
// Every controller and the scheduler write a decision record to their
// component's journal when they act (pkg/debug, Journal.Decision): a
// Deployment's rollout step with its arithmetic, a ReplicaSet's pods
// created or deleted, a pod's scheduling with each node's filter verdict
// and score. This panel shows each one's latest, as `ctl why TYPE/NAME`
// prints; the server reads them with ctl's code (pkg/ui/panel_why.go).
import { h } from "../dom.js";
import { SelectedPoller } from "../poll.js";

let latest = { uid: null, answer: null, error: null };
let target = null;
const poller = new SelectedPoller("/api/debug/why", (uid, answer, error) => {
  latest = { uid, answer, error };
  if (target) draw(target);
});

export function renderWhy(state, container) {
  target = container;
  poller.follow(state.selected);
  draw(container);
}

function draw(container) {
  const intro = h("p", { class: "explain" },
    "Each controller and the scheduler record why they acted. Same as ",
    h("code", {}, "ctl why TYPE/NAME"), ".");
  if (!poller.uid) {
    container.replaceChildren(intro, h("p", { class: "muted" }, "Select an object to see the decisions about it."));
    return;
  }
  if (latest.uid !== poller.uid) {
    container.replaceChildren(intro, h("p", { class: "muted" }, "loading…"));
    return;
  }
  if (latest.error) {
    container.replaceChildren(intro, h("p", { class: "muted why-error" }, latest.error));
    return;
  }
  const { decisions, warnings = [] } = latest.answer;
  // replaceChildren takes nodes, not arrays: h() flattens them.
  container.replaceChildren(h("div", { class: "why-body" }, intro,
    warnings.map((w) => h("p", { class: "muted" }, "⚠ ", w)),
    decisions.length === 0
      ? h("p", { class: "muted why-empty" }, "No decision recorded about this object yet.")
      : decisions.map(decisionBlock)));
}

// decisionBlock is one record: who decided, where, what, and the
// scheduler's table or the record's further lines.
function decisionBlock(d) {
  return h("article", { class: "decision", "data-actor": d.actor, "data-component": d.component },
    h("h3", {}, d.actor, h("span", { class: "muted" }, ` in ${d.component}, ${new Date(d.time).toLocaleTimeString()}`,
      d.resourceVersion ? `, rv=${d.resourceVersion}` : "")),
    h("p", { class: "decision-message" }, d.message),
    d.nodes && d.nodes.length > 0 ? nodeTable(d.nodes) : null,
    lines(d.nodes ? d.notes : d.lines),
    d.source ? h("p", { class: "muted" }, "mirrors upstream ", h("code", {}, d.source)) : null);
}

// nodeTable is the scheduler's filter and score table: a row per node,
// a column per score plugin, the chosen node marked with a word and a ★.
function nodeTable(nodes) {
  const plugins = [];
  for (const node of nodes) {
    for (const s of node.scores || []) if (!plugins.includes(s.plugin)) plugins.push(s.plugin);
  }
  return h("table", { class: "schedule" },
    h("tr", {}, h("th", {}, "Node"), h("th", {}, "Filter"), plugins.map((p) => h("th", {}, p)), h("th", {}, "Total")),
    nodes.map((node) => {
      const scores = new Map((node.scores || []).map((s) => [s.plugin, s]));
      return h("tr", { "data-node": node.node, class: node.chosen ? "chosen" : node.feasible ? "feasible" : "rejected" },
        h("td", {}, node.chosen ? "★ " : "", node.node, node.chosen ? " (chosen)" : ""),
        h("td", {}, node.feasible ? "✓ feasible" : `✗ ${node.filteredBy}: ${node.reason}`),
        plugins.map((p) => h("td", { class: "number" }, scores.has(p) ? `${scores.get(p).score}×${scores.get(p).weight}` : "")),
        h("td", { class: "number" }, node.scores ? node.total : (node.note || "")));
    }));
}

function lines(list) {
  if (!list || list.length === 0) return null;
  return h("ul", { class: "decision-lines" }, list.map((line) => h("li", {}, line)));
}
