// The page's entry point: one ClusterState fed by one stream, and one
// render function per view. Each view redraws from the state, at most once
// per animation frame (state.js), so views stay simple functions of the
// state.
import { ClusterState } from "./state.js";
import { connect } from "./stream.js";
import { renderNodes } from "./views/nodes.js";
import { renderGraph } from "./views/graph.js";
import { renderDetails } from "./views/details.js";
import { renderWhy } from "./views/why.js";
import { renderTrace } from "./views/trace.js";
import { renderUpcoming } from "./views/upcoming.js";
import { renderLeases } from "./views/leases.js";
import { renderQueues } from "./views/queues.js";
import { renderLabs } from "./views/labs.js";
import { renderFaults } from "./views/faults.js";
import { renderClock } from "./views/clock.js";
import { renderEtcd } from "./views/etcd.js";
import { renderTimeline } from "./views/timeline.js";

const state = new ClusterState();
const body = (id) => document.querySelector(`#${id} .body`);

const views = [
  (s) => renderNodes(s, body("nodes")),
  (s) => renderGraph(s, body("graph")),
  (s, changed) => renderDetails(s, body("details"), changed),
  (s) => renderWhy(s, body("why")),
  (s) => renderTrace(s, body("trace")),
  (s) => renderEtcd(s, body("etcd")),
  (s) => renderTimeline(s, body("timeline")),
];
state.onChange((s, changed) => {
  for (const view of views) view(s, changed);
});
renderUpcoming(body("upcoming"));
renderLeases(document.getElementById("leases"));
renderQueues(document.getElementById("queues"));
renderLabs(state, body("labs"));
renderFaults(body("faults"));
renderClock(body("clock"));

const connection = document.getElementById("connection");
connect(state, (mode, text) => {
  connection.dataset.state = mode;
  connection.textContent = text;
});
