// Issue 20's Done-when 2, first half, in a real browser: selecting a pod
// shows its Events and the scheduler's filter/score table (a row per node,
// the chosen one marked); selecting the Deployment during a rollout shows
// the deployment controller's decision record and its trace.
// why_test.go starts the cluster and `ctl ui` and runs this script with
// the environment ui_scenario.mjs describes.
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");
const manifest = env("KPLANE_MANIFEST");

await withBrowser(async (page) => {
  await page.goto(loginURL);
  await waitFor(page, "three nodes", () => document.querySelectorAll("#nodes [data-node]:not([data-node=''])").length === 3);

  // 1. A pod of ng-dep: its Events and its scheduling table.
  kubectl("apply", "-f", manifest);
  await waitFor(page, "a Running ng-dep pod", () =>
    !!document.querySelector("#nodes [data-pod^='ng-dep-'][data-phase='Running']"));
  await page.click("#nodes [data-pod^='ng-dep-'][data-phase='Running']");
  await waitFor(page, "the pod's Scheduled event", () =>
    !!document.querySelector("#details table.events tr[data-reason='Scheduled']"));
  await waitFor(page, "the scheduler's table: a row per node, one chosen", () => {
    const rows = document.querySelectorAll("#why article.decision[data-actor='scheduler'] table.schedule tr[data-node]");
    const chosen = document.querySelectorAll("#why table.schedule tr.chosen");
    return rows.length === 3 && chosen.length === 1 && chosen[0].textContent.includes("(chosen)");
  });
  await waitFor(page, "the chosen node is the one the pod runs on", () => {
    const chosen = document.querySelector("#why table.schedule tr.chosen")?.dataset.node;
    const pod = document.querySelector("#nodes [data-pod^='ng-dep-'][aria-pressed='true']");
    return !!chosen && !!pod && pod.closest("[data-node]")?.dataset.node === chosen;
  });
  await page.screenshot({ path: join(artifacts, "why-1-pod-scheduling-table.png"), fullPage: true });

  // 2. A rollout: the Deployment's decision record and its trace.
  kubectl("set", "image", "deployment/ng-dep", "ng-c-dep=nginx:1.25");
  await waitFor(page, "a second ReplicaSet under ng-dep", () =>
    document.querySelectorAll("#graph li[data-graph-kind='Deployment'][data-graph-name='ng-dep'] li[data-graph-kind='ReplicaSet']").length >= 2);
  await page.click("#graph button.object[data-kind='Deployment'][data-name='ng-dep']");
  await waitFor(page, "the deployment controller's decision record", () =>
    !!document.querySelector("#why article.decision[data-actor='deployment'] .decision-message")?.textContent);
  await waitFor(page, "the Deployment's trace: its writes, the controller's sync, and a ReplicaSet it owns", () => {
    const steps = [...document.querySelectorAll("#trace li.trace-step")];
    const has = (fn) => steps.some(fn);
    return has((s) => s.dataset.component === "apiserver")
      && has((s) => s.dataset.component === "controller-manager" && s.dataset.stage === "sync")
      && has((s) => s.querySelector(".kind")?.textContent.startsWith("replicasets.apps/"));
  });
  await page.screenshot({ path: join(artifacts, "why-2-deployment-rollout.png"), fullPage: true });
});
