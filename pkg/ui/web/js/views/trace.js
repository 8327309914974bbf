// Trace: the selected object's path through the control plane, from its
// etcd write through the apiserver's fan-out to the watches, each
// informer's stages (delta, store, handler), the workqueue and the sync, to
// the writes the sync made, down what it owns (a Deployment's ReplicaSets
// and Pods, to each kubelet's status write). Every component records these
// steps in its journal; the server merges them in time order with the code
// `ctl trace TYPE/NAME --since 10m` uses (pkg/ui/panel_trace.go).
import { h } from "../dom.js";
import { SelectedPoller } from "../poll.js";

let latest = { uid: null, answer: null, error: null };
let target = null;
const poller = new SelectedPoller("/api/debug/trace", (uid, answer, error) => {
  latest = { uid, answer, error };
  if (target) draw(target);
});

export function renderTrace(state, container) {
  target = container;
  poller.follow(state.selected);
  draw(container);
}

function draw(container) {
  const intro = h("p", { class: "explain" },
    "Every step of the object and what it owns, merged from every component's journal, oldest first, refreshed every 2 s. Same as ",
    h("code", {}, "ctl trace TYPE/NAME --since 10m"), ".");
  if (!poller.uid) {
    container.replaceChildren(intro, h("p", { class: "muted" }, "Select an object to follow it."));
    return;
  }
  if (latest.uid !== poller.uid) {
    container.replaceChildren(intro, h("p", { class: "muted" }, "loading…"));
    return;
  }
  if (latest.error) {
    container.replaceChildren(intro, h("p", { class: "muted trace-error" }, latest.error));
    return;
  }
  const { steps, omitted, warnings = [] } = latest.answer;
  // replaceChildren takes nodes, not arrays: h() flattens them.
  container.replaceChildren(h("div", { class: "trace-body" }, intro,
    warnings.map((w) => h("p", { class: "muted" }, "⚠ ", w)),
    omitted ? h("p", { class: "muted" }, `${omitted} older steps not shown.`) : null,
    steps.length === 0
      ? h("p", { class: "muted trace-empty" }, "No step recorded about this object yet.")
      : h("ol", { class: "trace" }, steps.map(stepItem))));
}

// stepItem is one line of `ctl trace`: time offset, component, stage,
// actor, object, resourceVersion and detail; a decision's further lines
// under it.
function stepItem(step) {
  return h("li", { class: "trace-step", "data-stage": step.stage, "data-component": step.component },
    h("span", { class: "trace-time" }, `+${step.offset.toFixed(3)}s`), " ",
    h("span", { class: "trace-component" }, step.component), " ",
    h("span", { class: "trace-stage" }, step.stage), " ",
    step.actor ? h("span", { class: "muted" }, step.actor, " ") : null,
    h("span", { class: "kind" }, step.object),
    step.resourceVersion ? h("span", { class: "muted" }, ` rv=${step.resourceVersion}`) : null,
    step.detail ? h("div", { class: "trace-detail" }, step.detail) : null,
    step.lines && step.lines.length > 0 ? h("ul", { class: "decision-lines" }, step.lines.map((l) => h("li", {}, l))) : null);
}
