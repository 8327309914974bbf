// The Leader-election panel: who holds each control-plane Lease, since
// when, its last renewal, and which processes wait to take over. The data
// is /api/debug/leases (pkg/ui/panel_leases.go): the Lease objects in
// kube-system, joined with each component's debug API (its leader
// elections, and its PID), polled while the panel is visible.
import { h } from "../dom.js";
import { fetchJSON, pollWhileVisible } from "../poll.js";
import { formatDuration } from "../duration.js";

const explanation = [
  "Leader election: a component may run in several processes, but only one may act, or two schedulers would bind the same pod. ",
  "The processes race to hold a Lease object; the holder renews it every few seconds, and when it stops for longer than the lease's duration a standby takes it over (the transitions count each handover). ",
  "The same from the command line: ", h("code", {}, "kubectl get leases -n kube-system"), " and ", h("code", {}, "ctl debug endpoints"), " (which process is which).",
];

// renewals counts, per Lease, the renewals this page has seen: a new
// renewTime since the previous poll.
const renewals = new Map();

export function renderLeases(section) {
  const container = section.querySelector(".body");
  const table = h("div", { class: "leases-table" }, h("p", { class: "muted" }, "loading…"));
  container.replaceChildren(h("p", { class: "explain" }, explanation), table);
  pollWhileVisible(section, async () => {
    try {
      const answer = await fetchJSON("/api/debug/leases");
      table.replaceChildren(leasesTable(answer.leases, Date.parse(answer.now)));
    } catch (err) {
      table.replaceChildren(h("p", { class: "muted" }, `✖ ${err.message}`));
    }
  });
}

function leasesTable(leases, now) {
  if (leases.length === 0) return h("p", { class: "muted" }, "No Lease in kube-system yet: no component has been elected.");
  return h("table", { class: "leases" },
    h("tr", {}, ["Lease", "Holder", "Held for", "Last renewal", "Duration", "Transitions", "Candidates"].map((title) => h("th", {}, title))),
    leases.map((lease) => leaseRow(lease, now)));
}

function leaseRow(lease, now) {
  const key = `${lease.namespace}/${lease.name}`;
  const seen = renewals.get(key) || { renewTime: lease.renewTime, count: 0 };
  if (lease.renewTime !== seen.renewTime) {
    seen.renewTime = lease.renewTime;
    seen.count++;
  }
  renewals.set(key, seen);

  const renewedAgo = lease.renewTime ? now - Date.parse(lease.renewTime) : NaN;
  const expired = !lease.holder || renewedAgo > lease.leaseDurationSeconds * 1000;
  const holderProcess = lease.candidates.find((c) => c.identity === lease.holder);
  return h("tr", { "data-lease": lease.name, "data-holder": lease.holder, "data-renewals": seen.count, class: expired ? "lease-expired" : "lease-held" },
    h("td", {}, lease.name),
    h("td", {},
      expired ? h("span", { class: "lease-state" }, "✖ ", lease.holder ? "expired: " : "released") : h("span", { class: "lease-state" }, "● "),
      h("strong", {}, lease.holder || ""),
      holderProcess ? h("div", { class: "muted" }, `${holderProcess.component}, pid ${holderProcess.pid}`) : null),
    h("td", {}, lease.acquireTime ? formatDuration(now - Date.parse(lease.acquireTime)) : "-"),
    h("td", { class: "lease-renewal" },
      lease.renewTime ? `${formatDuration(renewedAgo)} ago` : "never",
      h("div", { class: "muted" }, `↻ ${seen.count} renewal${seen.count === 1 ? "" : "s"} seen here`)),
    h("td", {}, `${lease.leaseDurationSeconds}s`),
    h("td", {}, lease.transitions),
    h("td", {}, lease.apiserverIdentity
      ? h("span", { class: "muted" }, "none: a heartbeat, not an election — each apiserver renews its own identity Lease")
      : lease.candidates.length === 0
      ? h("span", { class: "muted" }, "no process reports this election")
      : h("ul", { class: "candidates" }, lease.candidates.map((c) =>
        h("li", { "data-candidate": c.component },
          c.isLeader ? "★ leads: " : "☆ standby: ", `${c.component} (pid ${c.pid})`)))));
}
