// The nodes view: every Node with the pods bound to it (spec.nodeName, set
// by the scheduler's Binding), the sum of their requests against the
// node's allocatable, and the pods no node has yet.
import { h, objectButton, syncChildren } from "../dom.js";
import { parseQuantity, formatCPU, formatBytes } from "../quantity.js";
import { phaseOf, phaseLabel, legend } from "./phase.js";

export function renderNodes(state, container) {
  renders++;
  budget = newChipsPerRender;
  deferred = false;
  const podsByNode = new Map();
  for (const pod of state.ofKind("Pod")) {
    const nodeName = (pod.object.spec && pod.object.spec.nodeName) || "";
    if (!podsByNode.has(nodeName)) podsByNode.set(nodeName, []);
    podsByNode.get(nodeName).push(pod);
  }
  const drawn = state.ofKind("Node").map((node) => nodeCard(state, node, podsByNode.get(node.object.metadata.name) || []));
  const unscheduled = podsByNode.get("") || [];
  if (unscheduled.length > 0) drawn.push(waitingCard(state, unscheduled));
  if (!container.querySelector(":scope > .legend")) container.replaceChildren(legend());
  syncChildren(container, [container.querySelector(":scope > .legend"), ...drawn]);
  forgetGone(chips);
  forgetGone(cards);
  // Chips left for later (see newChipsPerRender) are drawn next frame.
  if (deferred) state.changed();
}

// newChipsPerRender bounds the pod chips one render builds. The first
// render of 1 000 pods, or a burst of 1 000 new ones, would otherwise
// build them all in one task of several hundred milliseconds, during
// which the page answers no click. Past the bound, a pod keeps its last
// chip (or has none yet) until the next frame, a few milliseconds later.
const newChipsPerRender = 200;
let budget = 0;
let deferred = false;

// cards keeps each node's card between renders, keyed by node name, with
// the node object and the numbers it was drawn from: a card whose node and
// requests did not change is kept, and only its pod chips are synced.
const cards = new Map();

function nodeCard(state, node, pods) {
  const allocatable = (node.object.status && node.object.status.allocatable) || {};
  const requested = sumRequests(pods.filter((pod) => !["Succeeded", "Failed"].includes(phaseOf(pod.object))));
  const selected = state.selected === node.uid;
  const name = node.object.metadata.name;
  let kept = cards.get(name);
  if (!kept || kept.object !== node.object || kept.selected !== selected ||
      kept.cpu !== requested.cpu || kept.memory !== requested.memory) {
    const cpu = { used: requested.cpu, total: parseQuantity(allocatable.cpu) };
    const memory = { used: requested.memory, total: parseQuantity(allocatable.memory) };
    const chipBox = h("div", { class: "pods" });
    const element = h("div", { class: "node", "data-node": name },
      h("div", { class: "node-head" },
        objectButton(state, node, h("span", { class: "node-name" }, name)),
        h("span", {}, readiness(node.object))),
      usage("cpu requested", formatCPU(cpu.used), formatCPU(cpu.total), cpu),
      usage("memory requested", formatBytes(memory.used), formatBytes(memory.total), memory),
      chipBox,
    );
    kept = { object: node.object, selected, cpu: requested.cpu, memory: requested.memory, element, chipBox };
    cards.set(name, kept);
  }
  kept.seen = renders;
  syncChildren(kept.chipBox, pods.map((pod) => podChip(state, pod)).filter(Boolean));
  return kept.element;
}

// waitingCard holds the pods no node has yet.
function waitingCard(state, pods) {
  let kept = cards.get("");
  if (!kept) {
    const chipBox = h("div", { class: "pods" });
    const element = h("div", { class: "node", "data-node": "" },
      h("div", { class: "node-head" }, h("span", { class: "node-name" }, "Not scheduled yet")), chipBox);
    kept = { element, chipBox };
    cards.set("", kept);
  }
  kept.seen = renders;
  syncChildren(kept.chipBox, pods.map((pod) => podChip(state, pod)).filter(Boolean));
  return kept.element;
}

// readiness is the node's Ready condition in words, as `kubectl get nodes`.
function readiness(node) {
  const conditions = (node.status && node.status.conditions) || [];
  const ready = conditions.find((c) => c.type === "Ready");
  const unschedulable = node.spec && node.spec.unschedulable ? ",SchedulingDisabled" : "";
  if (!ready) return "Unknown" + unschedulable;
  return (ready.status === "True" ? "Ready" : "NotReady") + unschedulable;
}

function usage(label, used, total, numbers) {
  const percent = numbers.total > 0 ? Math.min(100, (100 * numbers.used) / numbers.total) : 0;
  return h("div", { class: "usage" },
    `${label}: ${used} of ${total} allocatable (${Math.round(percent)}%)`,
    h("span", { class: "meter", role: "meter", "aria-valuenow": Math.round(percent), "aria-valuemin": 0, "aria-valuemax": 100, "aria-label": label },
      h("span", { style: `width: ${percent}%` })));
}

// sumRequests adds the containers' requests, as the scheduler counts them.
function sumRequests(pods) {
  let cpu = 0;
  let memory = 0;
  for (const pod of pods) {
    for (const container of (pod.object.spec && pod.object.spec.containers) || []) {
      const requests = (container.resources && container.resources.requests) || {};
      cpu += parseQuantity(requests.cpu);
      memory += parseQuantity(requests.memory);
    }
  }
  return { cpu, memory };
}

// chips keeps each pod's chip between renders, keyed by UID, with the
// object it was drawn from: a render rebuilds only the chips of pods that
// changed (or whose selection did), not all thousand of them.
const chips = new Map();

// chipIsCurrent says whether the pod's kept chip shows it as it is now.
function chipIsCurrent(state, pod) {
  const kept = chips.get(pod.uid);
  return Boolean(kept) && kept.object === pod.object && kept.selected === (state.selected === pod.uid);
}

// podChip returns the pod's chip: the kept one if it shows the pod as it
// is, a new one while the render's budget lasts, else — until the next
// frame — the last one, or none if the pod has never been drawn.
function podChip(state, pod) {
  const kept = chips.get(pod.uid);
  if (kept && chipIsCurrent(state, pod)) {
    kept.seen = renders;
    return kept.element;
  }
  if (budget === 0) {
    deferred = true;
    if (!kept) return null;
    kept.seen = renders;
    return kept.element;
  }
  budget--;
  const element = newPodChip(state, pod);
  chips.set(pod.uid, { object: pod.object, selected: state.selected === pod.uid, element, seen: renders });
  return element;
}

// forgetGone drops the kept chips or cards the last render did not draw.
function forgetGone(kept) {
  for (const [key, entry] of kept) {
    if (entry.seen !== renders) kept.delete(key);
  }
}

let renders = 0;

function newPodChip(state, pod) {
  const phase = phaseOf(pod.object);
  const button = objectButton(state, pod, phaseLabel(phase), " ", pod.object.metadata.name);
  button.classList.add(`phase-${phase}`);
  button.dataset.pod = pod.object.metadata.name;
  button.dataset.phase = phase;
  button.title = `${pod.object.metadata.namespace}/${pod.object.metadata.name}: ${phase}`;
  return button;
}
