// The Leader-election and Workqueues panels in a real browser (issue 20's
// Done-when 2: "the workqueue panel shows a key move through queue →
// processing → done"). queues_test.go starts a `ctl up` cluster and `ctl
// ui`, then runs this script with:
//   KPLANE_UI_LOGIN     the one-time login link `ctl ui` printed
//   KPLANE_ARTIFACT_DIR where the screenshots go
//   KPLANE_KUBECTL, KUBECONFIG, HOME   how to run the real kubectl
//   KPLANE_MANIFEST     the seeds' Deployment ng-dep
//   KPLANE_CHROMIUM     the browser (default /usr/bin/chromium)
// The panels poll only while they are on screen, so each is scrolled into
// view before it is waited for.
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");
const manifest = env("KPLANE_MANIFEST");

// passageStates lists the states of each finished passage of
// default/ng-dep through the controller-manager's deployment queue.
const ngDepPassages = () =>
  [...document.querySelectorAll("#queues li.passage[data-queue='deployment'][data-key='default/ng-dep'][data-finished='true']")]
    .map((li) => [...li.querySelectorAll(".step")].map((step) => step.dataset.state));

await withBrowser(async (page) => {
  await page.goto(loginURL);
  await waitFor(page, "the stream is live", () => document.getElementById("connection").dataset.state === "live");

  // 1. The Leases: the controller-manager's and the scheduler's holders,
  // with the process that leads; then a renewal seen by the page.
  await page.locator("#leases").scrollIntoViewIfNeeded();
  for (const lease of ["kube-controller-manager", "kube-scheduler"]) {
    await waitFor(page, `${lease}'s holder and the process that leads`, (name) => {
      const row = document.querySelector(`#leases tr[data-lease='${name}']`);
      return !!row && row.dataset.holder !== "" && row.classList.contains("lease-held") &&
        /★ leads: /.test(row.querySelector(".candidates")?.innerText || "");
    }, lease);
  }
  await waitFor(page, "a renewal of the scheduler's Lease", () =>
    Number(document.querySelector("#leases tr[data-lease='kube-scheduler']").dataset.renewals) >= 1);
  await page.locator("#leases").screenshot({ path: join(artifacts, "1-leases.png") });

  // 2. The Workqueues: filter to the deployment queue, create and scale
  // ng-dep, and find default/ng-dep's passages through that queue.
  await page.locator("#queues").scrollIntoViewIfNeeded();
  await waitFor(page, "the controller-manager's deployment queue", () =>
    !!document.querySelector("#queues [data-component='controller-manager'] tr[data-queue='deployment']") &&
    !!document.querySelector("#queues-filter option[value='deployment']"));
  await page.selectOption("#queues-filter", "deployment");
  kubectl("apply", "-f", manifest);
  await waitFor(page, "a first passage of default/ng-dep, after its creation", () =>
    document.querySelectorAll("#queues li.passage[data-key='default/ng-dep'][data-finished='true']").length > 0);
  const before = await page.evaluate(() =>
    Math.max(0, ...[...document.querySelectorAll("#queues li.passage[data-key='default/ng-dep'] .step")].map((s) => Number(s.dataset.seq))));
  kubectl("scale", "deployment/ng-dep", "--replicas=3");
  await waitFor(page, "default/ng-dep through the deployment queue after the scale: queue → processing → done", (after) =>
    [...document.querySelectorAll("#queues li.passage[data-queue='deployment'][data-key='default/ng-dep'][data-finished='true']")]
      .some((li) => {
        const steps = [...li.querySelectorAll(".step")];
        if (steps.length === 0 || Number(steps[0].dataset.seq) <= after) return false;
        const states = steps.map((s) => s.dataset.state);
        const queued = states.indexOf("queue");
        const processing = states.indexOf("processing", queued);
        const done = states.indexOf("done", processing);
        return queued === 0 && processing > queued && done > processing;
      }), before);
  console.log(`default/ng-dep's passages: ${JSON.stringify(await page.evaluate(ngDepPassages))}`);
  await page.locator("#queues").screenshot({ path: join(artifacts, "2-deployment-queue.png") });
  await page.screenshot({ path: join(artifacts, "3-page.png"), fullPage: true });
});
