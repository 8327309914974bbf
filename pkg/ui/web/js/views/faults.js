// The faults panel: a button per `ctl fault` action. Each button runs the
// same code as the command (pkg/fault on the server) and shows the same
// text the command prints: what happened, and what to watch for next.
// Every button asks for confirmation first: these really break the cluster.
import { h } from "../dom.js";
import { postJSON } from "./post.js";

const explanation = `Real clusters break: processes die, networks drop watches, etcd compacts
its history, the apiserver fails requests. Each button below does one of these to this cluster, the
way "ctl fault" does from a shell, so you can watch the control plane cope.`;

// fault describes one button: what it does, what to watch for, and how to
// run it (the request it makes, built from the panel's inputs).
const faults = [
  {
    id: "compact", label: "Compact etcd", command: "ctl fault compact",
    what: "etcd forgets every revision written so far, and the apiserver ends every watch.",
    watch: "each informer watches again from a resourceVersion etcd no longer has, gets 410 Gone, and relists everything. The answer names the compaction revision.",
    request: () => ["/api/debug/faults/compact"],
  },
  {
    id: "api-error", label: "Inject API error", command: "ctl fault api-error --resource R --verb V --code C --for D",
    what: "the apiserver fails every request for the resource and verb below with the chosen code, for the chosen time.",
    watch: "kubectl and the controllers get the injected Status; a controller's key comes back with back-off (ctl queues).",
    request: (inputs) => ["/api/debug/faults/api-error", {
      resource: inputs.resource.value, verb: inputs.verb.value,
      code: Number(inputs.code.value), for: inputs.for.value,
    }],
  },
  {
    id: "api-error-clear", label: "Clear API errors", command: "ctl fault api-error --clear",
    what: "every api-error rule goes, and the requests they held are served.",
    watch: "the next retry succeeds and the retries reset to 0.",
    request: () => ["/api/debug/faults/api-error/clear"],
  },
  {
    id: "drop-watch", label: "Drop watches", command: "ctl fault drop-watch COMPONENT",
    what: "the component's informers lose their watches, as on a broken connection.",
    watch: "each reflector watches again from the last resourceVersion it saw: nothing is missed and nothing is relisted (ctl trace shows a rewatch step).",
    request: (inputs) => [`/api/debug/faults/drop-watch?component=${encodeURIComponent(inputs.component.value)}`],
  },
  {
    id: "kill-controller-manager", label: "Kill the controller-manager's leader", command: "ctl fault kill controller-manager [--signal KILL]",
    what: "the controller-manager process that holds the Lease kube-system/kube-controller-manager (the leader: only it runs the controllers) gets the signal chosen below; ctl up's supervisor starts it again about a second later.",
    watch: "with SIGTERM the leader releases its Lease as it stops and a standby (ctl up --controller-managers 2) takes it within its 2 s retry; with SIGKILL the Lease stays in the dead leader's name until it expires, 15 s after its last renewal. Without a standby, the restarted process takes the Lease back. The Leader election panel shows the holder change; the Workqueues panel the new leader's queues starting.",
    request: (inputs) => [`/api/debug/faults/kill-leader?component=controller-manager&signal=${inputs.signal.value}`],
  },
  {
    id: "kill-scheduler", label: "Kill the scheduler's leader", command: "ctl fault kill scheduler [--signal KILL]",
    what: "the scheduler process that holds the Lease kube-system/kube-scheduler gets the signal chosen below, and is started again.",
    watch: "pods created meanwhile stay Pending until a scheduler leads again (after the Lease is released, or has expired with SIGKILL); then they are bound.",
    request: (inputs) => [`/api/debug/faults/kill-leader?component=scheduler&signal=${inputs.signal.value}`],
  },
  {
    id: "pause-kubelet", label: "Pause kubelet", command: "ctl fault pause-kubelet NODE",
    what: "the node's kubelet stops renewing its Lease and posting node status; its pods keep running.",
    watch: "after 50 s of cluster time the node goes NotReady (Unknown) and is tainted unreachable; 300 s later its pods are evicted. On the virtual clock, advance it to get there now.",
    request: (inputs) => [`/api/debug/faults/pause-kubelet?node=${encodeURIComponent(inputs.node.value)}`],
  },
  {
    id: "resume-kubelet", label: "Resume kubelet", command: "ctl fault resume-kubelet NODE",
    what: "the node's kubelet renews its Lease and posts its node status again.",
    watch: "within 5 s the node is Ready again, its unreachable taints gone.",
    request: (inputs) => [`/api/debug/faults/resume-kubelet?node=${encodeURIComponent(inputs.node.value)}`],
  },
];

// renderFaults draws the panel once: the buttons do not depend on the
// cluster's state, only on what the user types.
export function renderFaults(container) {
  const inputs = {
    resource: h("input", { name: "resource", value: "configmaps", size: 14, "aria-label": "resource" }),
    verb: h("input", { name: "verb", value: "list", size: 8, "aria-label": "verb" }),
    code: h("select", { name: "code", "aria-label": "status code" },
      h("option", { value: "500" }, "500 InternalError"),
      h("option", { value: "429" }, "429 TooManyRequests"),
      h("option", { value: "409" }, "409 Conflict")),
    for: h("input", { name: "for", value: "60s", size: 5, "aria-label": "for how long" }),
    component: h("input", { name: "component", value: "controller-manager", size: 18, "aria-label": "component" }),
    node: h("input", { name: "node", value: "node1", size: 10, "aria-label": "node" }),
    signal: h("select", { name: "signal", "aria-label": "signal" },
      h("option", { value: "TERM" }, "SIGTERM (stop cleanly)"),
      h("option", { value: "KILL" }, "SIGKILL (no clean-up)")),
  };
  const result = h("pre", { class: "fault-result", role: "status", "aria-live": "polite" }, "No fault injected yet.");
  const run = async (fault) => {
    if (!window.confirm(`${fault.label}: ${fault.what}\n\nReally do this to the cluster?`)) return;
    result.dataset.state = "running";
    result.textContent = `${fault.command} …`;
    try {
      const answer = await postJSON(...fault.request(inputs));
      result.dataset.state = "done";
      result.textContent = `✔ ${answer.text}`;
    } catch (error) {
      result.dataset.state = "failed";
      result.textContent = `✘ ${fault.label} failed: ${error.message}`;
    }
  };
  container.replaceChildren(
    h("p", {}, explanation),
    h("p", { class: "fault-inputs" },
      "API error: resource ", inputs.resource, " verb ", inputs.verb, " code ", inputs.code, " for ", inputs.for,
      " · drop the watches of ", inputs.component, " · kubelet of node ", inputs.node,
      " · kill the leader with ", inputs.signal),
    h("div", { class: "faults" }, faults.map((fault) =>
      h("article", { "data-fault": fault.id },
        h("button", { type: "button", "data-fault": fault.id, onclick: () => run(fault) }, fault.label),
        h("p", {}, fault.what),
        h("p", { class: "muted" }, "Watch for: ", fault.watch),
        h("p", { class: "muted" }, "Same as ", h("code", {}, fault.command))))),
    result);
}
