// The page's entry point: one ClusterState fed by one stream, and one
// render function per view. Each view redraws from the state, at most once
// per animation frame (state.js), so views stay simple functions of the
// state.
import { ClusterState } from "./state.js";
import { connect } from "./stream.js";
import { renderNodes } from "./views/nodes.js";
import { renderGraph } from "./views/graph.js";
import { renderDetails } from "./views/details.js";
import { renderUpcoming } from "./views/upcoming.js";
import { renderEtcd } from "./views/etcd.js";

const state = new ClusterState();
const body = (id) => document.querySelector(`#${id} .body`);

const views = [
  (s) => renderNodes(s, body("nodes")),
  (s) => renderGraph(s, body("graph")),
  (s, changed) => renderDetails(s, body("details"), changed),
  (s) => renderEtcd(s, body("etcd")),
];
state.onChange((s, changed) => {
  for (const view of views) view(s, changed);
});
renderUpcoming(body("upcoming"));

const connection = document.getElementById("connection");
connect(state, (mode, text) => {
  connection.dataset.state = mode;
  connection.textContent = text;
});
