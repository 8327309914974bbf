// The panels still to come, each built on the components' debug API (the
// same one the ctl verbs named here read). Until a panel exists, the page
// says which command shows the same thing today, rather than showing made-up
// data. To add a panel: write views/<name>.js with a render function, a feed
// on the server (pkg/ui/feed_<name>.go), and replace its entry here.
import { h } from "../dom.js";

export const upcomingPanels = [
  { id: "leases", title: "Leader election", command: "kubectl get leases -n kube-system", about: "which controller-manager and scheduler hold their Lease, and when it was renewed" },
  { id: "queues", title: "Workqueues", command: "ctl queues -w", about: "every controller's queue, dirty and processing sets, and retries" },
  { id: "trace", title: "Trace", command: "ctl trace deployment/NAME", about: "an object's path from its etcd write through informers and controllers to the kubelet" },
  { id: "why", title: "Why", command: "ctl why pod/NAME", about: "each controller's and the scheduler's decision, with the scheduler's filter and score table" },
  { id: "timeline", title: "Timeline", command: "ctl events -w", about: "Events and writes in order, to scrub back through" },
  { id: "faults", title: "Faults", command: "ctl fault --help", about: "kill the leader, pause a kubelet, compact etcd, inject API errors" },
];

export function renderUpcoming(container) {
  container.replaceChildren(h("div", { class: "upcoming" }, upcomingPanels.map((panel) =>
    h("article", { id: `panel-${panel.id}`, "data-panel": panel.id },
      h("h3", {}, panel.title),
      h("p", {}, panel.about, "."),
      h("p", { class: "muted" }, "Not in the page yet. Today: ", h("code", {}, panel.command))))));
}
