// The ownership graph: the server sends, with each object, its edges —
// "owns" from each of its ownerReferences (what the garbage collector
// follows) and, for an EndpointSlice, "targets" to each Pod it lists. The
// page draws them as trees: a Deployment over its ReplicaSets over their
// Pods, a Service over its EndpointSlices over the Pods they target.
import { h, objectButton } from "../dom.js";
import { objectKey } from "../state.js";
import { phaseOf, phaseLabel } from "./phase.js";

// Kinds that are part of no tree of interest on their own.
const hiddenRoots = new Set(["Node", "Event", "Pod", "EndpointSlice", "PersistentVolume"]);

export function renderGraph(state, container) {
  const children = new Map();
  const hasParent = new Set();
  for (const item of state.objects.values()) {
    for (const edge of item.edges || []) {
      if (!state.objects.has(edge.from)) continue; // owner not (yet) seen
      if (!children.has(edge.from)) children.set(edge.from, []);
      children.get(edge.from).push({ uid: edge.to, relation: edge.relation });
      hasParent.add(edge.to);
    }
  }
  const roots = [...state.objects.values()]
    .filter((item) => !hasParent.has(item.uid))
    .filter((item) => !hiddenRoots.has(item.kind) || children.has(item.uid))
    .filter((item) => item.object.metadata.namespace !== "kube-system" || children.has(item.uid))
    .sort((a, b) => (a.kind + objectKey(a)).localeCompare(b.kind + objectKey(b)));
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
  const below = (children.get(item.uid) || [])
    .map((edge) => ({ edge, child: state.objects.get(edge.uid) }))
    .filter(({ edge, child }) => child && !visiting.has(edge.uid))
    .sort((a, b) => objectKey(a.child).localeCompare(objectKey(b.child)));
  const button = objectButton(state, item, ...label);
  if (item.kind === "Pod") button.classList.add(`phase-${phaseOf(item.object)}`);
  const node = h("li", { "data-graph-kind": item.kind, "data-graph-name": item.object.metadata.name },
    relation === "targets" ? h("span", { class: "relation" }, "targets → ") : null,
    button,
    below.length > 0 ? h("ul", {}, below.map(({ edge, child }) => branch(state, children, child, edge.relation, visiting))) : null);
  visiting.delete(item.uid);
  return node;
}
