// The ownership graph: the server sends, with each object, its edges —
// "owns" from each of its ownerReferences (what the garbage collector
// follows) and, for an EndpointSlice, "targets" to each Pod it lists. The
// page draws them as trees: a Deployment over its ReplicaSets over their
// Pods, a Service over its EndpointSlices over the Pods they target.
//
// Storage hangs below the pods: "uses" from a Pod to each
// PersistentVolumeClaim its volumes name, and "bound" from a claim to the
// PersistentVolume its spec.volumeName names. Those fields name the child
// by name, not UID, so the server sends a toRef the page looks up here. A
// StatefulSet's claims (from its volumeClaimTemplates) are owned by nobody
// unless its persistentVolumeClaimRetentionPolicy says Delete — then they
// carry an ownerReference too, and the arrow reads "owns".
//
// With a thousand pods the page must not rebuild a thousand rows on every
// frame. Two things keep it fast, and both are worth knowing for any UI:
// - keyed rows: each row (<li>) is kept between renders, keyed by its path
//   from the root, with the object it was drawn from; a render rebuilds
//   only the rows whose object changed and puts them in place with
//   syncChildren, so one pod turning Running replaces one row;
// - a parent with many pods (a ReplicaSet of 1 000) shows one summary
//   line instead — how many pods are in each phase, as words, markers and
//   colours — that expands to the pods on click.

import { h, objectButton, syncChildren } from "../dom.js";
import { objectKey, compareText, sortedByKey } from "../state.js";
import { phaseOf, phaseLabel, phases } from "./phase.js";

// Kinds that are part of no tree of interest on their own.
const hiddenRoots = new Set(["Node", "Event", "Pod", "EndpointSlice", "PersistentVolume"]);

// Words drawn before a child that its parent does not own.
const relationWords = { targets: "targets → ", uses: "uses → ", bound: "bound to → " };

// A parent with more pods than this draws a summary line until expanded.
const podsBeforeSummary = 20;

// expanded holds the UIDs of the parents whose pods the student opened.
const expanded = new Set();

// rows keeps each drawn row between renders, keyed by path (see row).
const rows = new Map();
let renders = 0;
const tree = h("ul", { class: "tree" });

export function renderGraph(state, container) {
  renders++;
  const children = edgesByParent(state);
  const hasParent = new Set();
  for (const below of children.values()) for (const uid of below.keys()) hasParent.add(uid);
  const roots = [];
  for (const [kind, items] of state.byKind) {
    for (const item of items.values()) {
      if (hasParent.has(item.uid)) continue;
      if (hiddenRoots.has(kind) && !children.has(item.uid)) continue;
      if (item.object.metadata.namespace === "kube-system" && !children.has(item.uid)) continue;
      roots.push(item);
    }
  }
  roots.sort((a, b) => compareText(a.kind + objectKey(a), b.kind + objectKey(b)));
  // Forget the rows the last render did not draw (objects gone, folded).
  for (const [key, kept] of rows) if (kept.seen < renders - 1) rows.delete(key);
  if (roots.length === 0) {
    container.replaceChildren(h("p", { class: "muted" }, "No workloads yet. Try kubectl apply -f examples/nginx-dep.yaml"));
    return;
  }
  syncChildren(tree, roots.map((root) => row(state, children, root, null, "", new Set())));
  if (container.firstChild !== tree || container.childNodes.length !== 1) container.replaceChildren(tree);
}

// edgesByParent follows every object's edges: parent UID → (child UID →
// {uid, relation}). Events have no edges, so they are not walked.
function edgesByParent(state) {
  const byName = new Map();
  for (const [kind, items] of state.byKind) {
    if (kind === "Event") continue;
    for (const item of items.values()) byName.set(refKey(kind, item.object.metadata), item.uid);
  }
  const children = new Map();
  for (const [kind, items] of state.byKind) {
    if (kind === "Event") continue;
    for (const item of items.values()) {
      for (const edge of item.edges || []) {
        const to = edge.to || (edge.toRef && byName.get(refKey(edge.toRef.kind, edge.toRef)));
        if (!to || !state.objects.has(edge.from)) continue; // an end not (yet) seen
        if (!children.has(edge.from)) children.set(edge.from, new Map());
        const known = children.get(edge.from).get(to);
        // A claim its pod both owns and uses is drawn once, as owned.
        if (!known || edge.relation === "owns") children.get(edge.from).set(to, { uid: to, relation: edge.relation });
      }
    }
  }
  return children;
}

// row returns the <li> of one object and, nested in it, its children's.
// The row is keyed by its path from the root (an object can appear under
// two parents: a pod under its ReplicaSet and under an EndpointSlice) and
// rebuilt only when its object, its relation or the selection changed.
function row(state, children, item, relation, parentPath, visiting) {
  const path = `${parentPath}/${item.uid}`;
  const selected = state.selected === item.uid;
  let kept = rows.get(path);
  if (!kept || kept.object !== item.object || kept.selected !== selected || kept.relation !== relation) {
    const label = [h("span", { class: "kind" }, item.kind), " ", item.object.metadata.name];
    if (item.kind === "Pod") label.push(" ", phaseLabel(phaseOf(item.object)));
    const button = objectButton(state, item, ...label);
    if (item.kind === "Pod") button.classList.add(`phase-${phaseOf(item.object)}`);
    const element = h("li", { "data-graph-kind": item.kind, "data-graph-name": item.object.metadata.name, "data-graph-relation": relation || "" },
      relationWords[relation] ? h("span", { class: "relation", "data-relation": relation }, relationWords[relation]) : null,
      button);
    kept = { object: item.object, selected, relation, element, list: h("ul") };
    rows.set(path, kept);
  }
  kept.seen = renders;

  visiting.add(item.uid);
  const below = [...(children.get(item.uid) || new Map()).values()]
    .map((edge) => ({ edge, child: state.objects.get(edge.uid) }))
    .filter(({ edge, child }) => child && !visiting.has(edge.uid));
  const pods = below.filter(({ child }) => child.kind === "Pod");
  const many = pods.length > podsBeforeSummary;
  const open = !many || expanded.has(item.uid);
  // Only the children drawn are sorted: a summary line needs no order.
  const drawnBelow = open ? below : below.filter(({ child }) => child.kind !== "Pod");
  const relationOf = new Map(drawnBelow.map(({ edge, child }) => [child, edge.relation]));
  const childRows = [];
  if (many) childRows.push(podSummary(state, item, pods.map(({ child }) => child), path));
  for (const child of sortedByKey(drawnBelow.map(({ child }) => child))) {
    childRows.push(row(state, children, child, relationOf.get(child), path, visiting));
  }
  visiting.delete(item.uid);

  syncChildren(kept.list, childRows);
  const listShown = kept.list.parentNode === kept.element;
  if (childRows.length > 0 && !listShown) kept.element.append(kept.list);
  if (childRows.length === 0 && listShown) kept.list.remove();
  return kept.element;
}

// podSummary is the line that stands for a parent's many pods: how many in
// each phase (the marker, the word and the count, coloured as the chips),
// and a button that shows or hides them.
function podSummary(state, parent, pods, parentPath) {
  const counts = new Map();
  for (const pod of pods) {
    const phase = phaseOf(pod.object);
    counts.set(phase, (counts.get(phase) || 0) + 1);
  }
  const open = expanded.has(parent.uid);
  const shownPhases = Object.keys(phases).filter((phase) => counts.has(phase));
  const text = `${open}:${shownPhases.map((phase) => `${phase}=${counts.get(phase)}`).join(",")}`;
  const path = `${parentPath}#pods`;
  let kept = rows.get(path);
  if (!kept || kept.text !== text) {
    const toggle = h("button", {
      type: "button", class: "pod-summary-toggle", "aria-expanded": String(open),
      onclick: () => {
        if (open) expanded.delete(parent.uid);
        else expanded.add(parent.uid);
        state.changed(); // redraw now, with or without the pods
      },
    }, `${open ? "▾ hide" : "▸ show"} ${pods.length} pods`);
    const perPhase = shownPhases.map((phase) =>
      h("span", { class: `pod-count phase-${phase}`, "data-phase": phase, "data-count": counts.get(phase) },
        phaseLabel(phase), ` ${counts.get(phase)}`));
    kept = { text, element: h("li", { class: "pod-summary", "data-graph-summary": parent.object.metadata.name, "data-pods": pods.length }, toggle, " ", perPhase) };
    rows.set(path, kept);
  }
  kept.seen = renders;
  return kept.element;
}

// refKey names an object as an edge's toRef does: kind, namespace, name.
function refKey(kind, meta) {
  return `${kind}/${meta.namespace || ""}/${meta.name}`;
}
