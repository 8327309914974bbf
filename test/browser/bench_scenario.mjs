// Issue 20's Done-when 4: the page with 1 000 pods on 100 nodes, in
// headless Chromium. bench_test.go (BenchmarkUI1000Pods) starts the
// cluster, `ctl ui` and a pod watch, then runs this script with:
//   KPLANE_UI_LOGIN, KPLANE_UI_BASE   the one-time login link and the page
//   KPLANE_KUBECTL, KUBECONFIG, HOME  how to run the real kubectl
//   KPLANE_BENCH_PODS, KPLANE_BENCH_NODES   the shape (1 000 and 100)
//   KPLANE_BENCH_RESULTS   where to write the page's measurements (JSON)
//   KPLANE_ARTIFACT_DIR    where the screenshots go
// 1. With the page open, a Deployment of the pods is created; the page
//    records, per pod, the wall-clock time its chip in the nodes view first
//    shows Running (the Go side compares it with its watch's).
//    The graph shows the pods as a summary line that expands on click.
// 2. A fresh navigation with every pod Running: the time from navigation
//    start to all pods drawn (every view renders in the same frame).
// Both phases record the main thread's long tasks (over 50 ms).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";
import { startProfile } from "./profile.mjs";

const pods = Number(env("KPLANE_BENCH_PODS"));
const nodes = Number(env("KPLANE_BENCH_NODES"));
const artifacts = env("KPLANE_ARTIFACT_DIR");
const profiling = Boolean(process.env.KPLANE_BENCH_PROFILE); // see profile.mjs
const benchLimit = 10 * 60_000; // a deadline for the whole rollout, not a performance claim

// probe runs in the page before its own scripts, at every navigation: a
// MutationObserver on the nodes view notes, at each batch of DOM changes
// (one per rendered frame), the pods newly shown Running and when all
// `expected` pods are drawn; a PerformanceObserver collects long tasks.
// Scanning the chips costs the page about 1 ms a frame at 1 000 pods.
function probe(expected) {
  const bench = { runningAt: {}, firstDrawnMs: null, allDrawnMs: null, longTasks: [] };
  window.__bench = bench;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push(entry.duration);
  }).observe({ type: "longtask", buffered: true });
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver(() => {
      const now = performance.timeOrigin + performance.now();
      const chips = document.querySelectorAll("#nodes [data-pod]");
      for (const chip of chips) {
        if (chip.dataset.phase === "Running" && !(chip.dataset.pod in bench.runningAt)) bench.runningAt[chip.dataset.pod] = now;
      }
      if (bench.firstDrawnMs === null && chips.length > 0) bench.firstDrawnMs = performance.now();
      if (bench.allDrawnMs === null && chips.length >= expected) bench.allDrawnMs = performance.now();
    }).observe(document.getElementById("nodes"), { subtree: true, childList: true, attributes: true });
  });
}

await withBrowser(async (page) => {
  await page.addInitScript(probe, pods);
  await page.goto(env("KPLANE_UI_LOGIN"));
  await waitFor(page, `${nodes} nodes drawn`, (n) => document.querySelectorAll("#nodes [data-node]:not([data-node=''])").length >= n, nodes);
  await waitFor(page, "the stream is live", () => document.getElementById("connection").dataset.state === "live");

  // 1. Update delay: the pods appear and turn Running with the page open.
  await page.evaluate(() => { window.__bench.longTasks = []; });
  const stopUpdateProfile = profiling && (await startProfile(page));
  kubectl("create", "deployment", "ui-bench", "--image=registry.k8s.io/pause:3.10", `--replicas=${pods}`);
  await page.waitForFunction((n) => Object.keys(window.__bench.runningAt).length >= n, pods, { timeout: benchLimit, polling: 1000 });
  const update = await page.evaluate(() => window.__bench);
  console.log(`all ${pods} pods Running in the page; ${update.longTasks.length} long tasks`);
  await page.screenshot({ path: join(artifacts, "bench-1000-running.png") });
  if (stopUpdateProfile) console.log(`profile while the pods start, self time:\n${(await stopUpdateProfile(join(artifacts, "update.cpuprofile"))).join("\n")}`);

  // The graph draws the ReplicaSet's 1 000 pods as one summary line (the
  // count per phase) that expands to the pods on click and folds back.
  const summary = "#graph li.pod-summary[data-graph-summary^='ui-bench-']";
  await waitFor(page, `the graph's summary line: ${pods} pods Running`, ({ sel, n }) =>
    !!document.querySelector(`${sel} .pod-count[data-phase='Running'][data-count='${n}']`), { sel: summary, n: pods });
  await page.click(`${summary} button.pod-summary-toggle`);
  await waitFor(page, `the expanded summary lists the ${pods} pods`, (n) =>
    document.querySelectorAll("#graph li[data-graph-kind='ReplicaSet'] li[data-graph-kind='Pod']").length === n, pods);
  await page.click(`${summary} button.pod-summary-toggle`);
  await waitFor(page, "the folded summary lists none", () =>
    document.querySelectorAll("#graph li[data-graph-kind='Pod']").length === 0);

  // 2. First render: a new navigation with every pod Running.
  const stopLoadProfile = profiling && (await startProfile(page));
  await page.goto(env("KPLANE_UI_BASE") + "/");
  await page.waitForFunction(() => window.__bench.allDrawnMs !== null, null, { timeout: benchLimit, polling: 200 });
  if (stopLoadProfile) console.log(`profile of the first render, self time:\n${(await stopLoadProfile(join(artifacts, "load.cpuprofile"))).join("\n")}`);
  const load = await page.evaluate(() => window.__bench);
  const longest = (tasks) => Math.max(0, ...tasks).toFixed(0);
  console.log(`update: longest long task ${longest(update.longTasks)} ms`);
  console.log(`first render: ${load.allDrawnMs.toFixed(0)} ms (first pod drawn at ${load.firstDrawnMs.toFixed(0)} ms); ` +
    `${load.longTasks.length} long tasks, longest ${longest(load.longTasks)} ms`);

  writeFileSync(env("KPLANE_BENCH_RESULTS"), JSON.stringify({
    runningAt: update.runningAt,
    firstRenderMs: load.allDrawnMs,
    longTasks: { update: update.longTasks, load: load.longTasks },
  }));
});
