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
import { h, objectButton } from "../dom.js";
import { objectKey, compareText } from "../state.js";
import { phaseOf, phaseLabel } from "./phase.js";

// Kinds that are part of no tree of interest on their own.
const hiddenRoots = new Set(["Node", "Event", "Pod", "EndpointSlice", "PersistentVolume"]);

// Words drawn before a child that its parent does not own.
const relationWords = { targets: "targets → ", uses: "uses → ", bound: "bound to → " };

export function renderGraph(state, container) {
  const byName = new Map();
  for (const item of state.objects.values()) byName.set(refKey(item.kind, item.object.metadata), item.uid);
  const children = new Map();
  const hasParent = new Set();
  for (const item of state.objects.values()) {
    for (const edge of item.edges || []) {
      const to = edge.to || (edge.toRef && byName.get(refKey(edge.toRef.kind, edge.toRef)));
      if (!to || !state.objects.has(edge.from)) continue; // an end not (yet) seen
      if (!children.has(edge.from)) children.set(edge.from, new Map());
      const known = children.get(edge.from).get(to);
      // A claim its pod both owns and uses is drawn once, as owned.
      if (!known || edge.relation === "owns") children.get(edge.from).set(to, { uid: to, relation: edge.relation });
      hasParent.add(to);
    }
  }
  const roots = [...state.objects.values()]
    .filter((item) => !hasParent.has(item.uid))
    .filter((item) => !hiddenRoots.has(item.kind) || children.has(item.uid))
    .filter((item) => item.object.metadata.namespace !== "kube-system" || children.has(item.uid))
    .sort((a, b) => compareText(a.kind + objectKey(a), b.kind + objectKey(b)));
  if (roots.length === 0) {
    container.replaceChildren(h("p", { class: "muted" }, "No workloads yet. Try kubectl apply -f examples/nginx-dep.yaml"));
    return;
  }
  container.replaceChildren(h("ul", { class: "tree" }, roots.map((root) => branch(state, children, root, null, new Set()))));
}

function branch(state, children, item, relation, visiting) {
  visiting.add(item.uid);
  const label = [h("span", { class: "kind" }, item.kind), " ", item.object.metadata.name];
  if (item.kind === "Pod") label.push(" ", phaseLabel(phaseOf(item.object)));
  const below = [...(children.get(item.uid) || new Map()).values()]
    .map((edge) => ({ edge, child: state.objects.get(edge.uid) }))
    .filter(({ edge, child }) => child && !visiting.has(edge.uid))
    .sort((a, b) => compareText(objectKey(a.child), objectKey(b.child)));
  const button = objectButton(state, item, ...label);
  if (item.kind === "Pod") button.classList.add(`phase-${phaseOf(item.object)}`);
  const node = h("li", { "data-graph-kind": item.kind, "data-graph-name": item.object.metadata.name, "data-graph-relation": relation || "" },
    relationWords[relation] ? h("span", { class: "relation", "data-relation": relation }, relationWords[relation]) : null,
    button,
    below.length > 0 ? h("ul", {}, below.map(({ edge, child }) => branch(state, children, child, edge.relation, visiting))) : null);
  visiting.delete(item.uid);
  return node;
}

// refKey names an object as an edge's toRef does: kind, namespace, name.
function refKey(kind, meta) {
  return `${kind}/${meta.namespace || ""}/${meta.name}`;
}
