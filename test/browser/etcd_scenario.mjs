// The etcd panel in a real browser (etcd_test.go runs it with the same
// environment as ui_scenario.mjs): after `kubectl apply` of ng-dep, the
// Deployment's etcd key shows with a revision equal to the resourceVersion
// kubectl prints; after `kubectl scale` its history has two or more
// revisions, the newest again kubectl's resourceVersion.
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");
const manifest = env("KPLANE_MANIFEST");
const key = "/registry/deployments/default/ng-dep";

// historyShows reports whether the etcd panel shows key's history with a
// row for revision rv, and at least min rows.
const historyShows = ({ key, rv, min }) => {
  const shown = document.querySelector("#etcd .etcd-key");
  const rows = document.querySelectorAll("#etcd .etcd-history tbody tr");
  return !!shown && shown.textContent === key && rows.length >= min &&
    !!document.querySelector(`#etcd .etcd-history tr[data-revision='${rv}']`);
};

await withBrowser(async (page) => {
  await page.goto(loginURL);
  kubectl("apply", "-f", manifest);
  await waitFor(page, "ng-dep in the graph", () =>
    !!document.querySelector("#graph li[data-graph-kind='Deployment'][data-graph-name='ng-dep'] button"));
  await page.click("#graph li[data-graph-kind='Deployment'][data-graph-name='ng-dep'] button");
  await page.evaluate(() => document.getElementById("etcd").scrollIntoView());
  await waitFor(page, "the etcd panel's keys per resource", () =>
    [...document.querySelectorAll("#etcd .etcd-prefixes code")].some((c) => c.textContent === "/registry/deployments/"));

  // kubectl apply wrote the Deployment; its controller writes its status
  // too: wait for the resourceVersion to settle as the page sees it.
  const rv1 = kubectl("get", "deployment/ng-dep", "-o", "jsonpath={.metadata.resourceVersion}").trim();
  await waitFor(page, `the key with revision ${rv1}`, historyShows, { key, rv: rv1, min: 1 });
  await page.screenshot({ path: join(artifacts, "etcd-1-applied.png"), fullPage: true });

  kubectl("scale", "deployment/ng-dep", "--replicas=3");
  await waitFor(page, "three ng-dep pods", () => document.querySelectorAll("#nodes [data-pod^='ng-dep-']").length === 3);
  const rv2 = kubectl("get", "deployment/ng-dep", "-o", "jsonpath={.metadata.resourceVersion}").trim();
  await page.evaluate(() => document.getElementById("etcd").scrollIntoView());
  await waitFor(page, `two or more revisions, up to ${rv2}`, historyShows, { key, rv: rv2, min: 2 });
  await page.screenshot({ path: join(artifacts, "etcd-2-scaled.png"), fullPage: true });
  console.log(`ok: ${key} at ${rv1}, then ${rv2}`);
});
