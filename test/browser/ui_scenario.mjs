// Issue 20's Done-when 1, in a real browser: headless Debian Chromium,
// driven by playwright-core, against `ctl ui` on a `ctl up` cluster.
// ui_test.go starts both and runs this script with:
//   KPLANE_UI_LOGIN     the one-time login link `ctl ui` printed
//   KPLANE_ARTIFACT_DIR where the screenshots go
//   KPLANE_KUBECTL, KUBECONFIG, HOME   how to run the real kubectl
//   KPLANE_MANIFEST     the seeds' Deployment ng-dep (4 replicas)
//   KPLANE_CHROMIUM     the browser (default /usr/bin/chromium)
// Each wait has a deadline and, when it passes, says what the page showed.
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");
const manifest = env("KPLANE_MANIFEST");

// ngDepPods counts the ng-dep pods in the nodes view, by phase.
const ngDepPods = (want) => {
  const pods = [...document.querySelectorAll("#nodes [data-pod^='ng-dep-']")];
  const running = pods.filter((p) => p.dataset.phase === "Running").length;
  return pods.length === want.total && running === want.running;
};

await withBrowser(async (page) => {
  let loads = 0;
  page.on("load", () => loads++);

  // 1. The login link sets the session cookie and lands on the page.
  await page.goto(loginURL);
  await waitFor(page, "three nodes", () => document.querySelectorAll("#nodes [data-node]:not([data-node=''])").length === 3);
  await waitFor(page, "the stream is live", () => document.getElementById("connection").dataset.state === "live");
  await page.screenshot({ path: join(artifacts, "1-three-nodes.png"), fullPage: true });
  const loadsBefore = loads;

  // 2. kubectl apply: the ReplicaSet and four pods appear and turn Running.
  kubectl("apply", "-f", manifest);
  await waitFor(page, "Deployment → ReplicaSet in the graph", () =>
    !!document.querySelector("#graph li[data-graph-kind='Deployment'][data-graph-name='ng-dep'] li[data-graph-kind='ReplicaSet']"));
  await waitFor(page, "four ng-dep pods Running", ngDepPods, { total: 4, running: 4 });
  await waitFor(page, "the four pods under the ReplicaSet in the graph", () =>
    document.querySelectorAll("#graph li[data-graph-name='ng-dep'] li[data-graph-kind='ReplicaSet'] li[data-graph-kind='Pod']").length === 4);
  await page.screenshot({ path: join(artifacts, "2-ng-dep-running.png"), fullPage: true });

  // 3. Scaling to 3 removes one pod.
  kubectl("scale", "deployment/ng-dep", "--replicas=3");
  await waitFor(page, "three ng-dep pods", ngDepPods, { total: 3, running: 3 });
  await page.screenshot({ path: join(artifacts, "3-scaled-to-3.png"), fullPage: true });

  // 4. Selecting a pod shows its Events (the scheduler's Scheduled, the
  // kubelet's Started…), its YAML and its last change.
  await page.click("#nodes [data-pod^='ng-dep-']");
  await waitFor(page, "the pod's Scheduled event", () =>
    !!document.querySelector("#details table.events tr[data-reason='Scheduled']"));
  await waitFor(page, "the pod's YAML", () =>
    (document.querySelector("#details .yaml-text") || {}).textContent?.includes("kind: Pod"));
  await page.screenshot({ path: join(artifacts, "4-pod-selected.png"), fullPage: true });

  if (loads !== loadsBefore) throw new Error(`the page reloaded ${loads - loadsBefore} times`);
  console.log("ok: no reload");
});
