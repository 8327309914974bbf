// The Timeline panel in a real browser (timeline_test.go runs it with the
// environment of every scenario): after `kubectl create deployment`, with
// the Deployment selected and "only the selected object" on, the panel
// lists the Deployment's create, the deployment controller's ReplicaSet,
// the ScalingReplicaSet Event, the scheduler's binding and the kubelet's
// status write, in that order. After `kubectl scale`, scrubbing back to the
// Deployment's first write shows its YAML at that revision (one replica),
// ← → move one entry, and Live returns to the newest.
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");
const name = "tl-web";

// rolloutInOrder reports whether the panel lists the rollout's steps in
// order, each by its data attributes.
const rolloutInOrder = (name) => {
  const items = [...document.querySelectorAll("#timeline li.timeline-entry")];
  const index = (test) => items.findIndex(test);
  const created = index((li) => li.dataset.verb === "create" && li.dataset.object === `deployments.apps/default/${name}`);
  const replicaSet = index((li) => li.dataset.verb === "create" && li.dataset.component === "controller-manager" &&
    li.dataset.object.startsWith(`replicasets.apps/default/${name}-`));
  const scaled = index((li) => li.dataset.reason === "ScalingReplicaSet" && li.dataset.object === `Deployment/default/${name}`);
  const bound = index((li) => li.dataset.verb === "bind" && li.dataset.component === "scheduler");
  const status = index((li) => li.dataset.verb === "status" && (li.dataset.component || "").startsWith("kubelet") &&
    li.dataset.object.startsWith(`pods/default/${name}-`));
  return created >= 0 && created < replicaSet && replicaSet < bound && bound < status && scaled > created;
};

await withBrowser(async (page) => {
  await page.goto(loginURL);
  kubectl("create", "deployment", name, "--image=nginx", "--replicas=1");
  const button = `#graph li[data-graph-kind='Deployment'][data-graph-name='${name}'] button`;
  await waitFor(page, `${name} in the graph`, (selector) => !!document.querySelector(selector), button);
  await page.click(button);
  await page.evaluate(() => document.getElementById("timeline").scrollIntoView());
  await page.getByLabel("only the selected object and what it owns").check();
  await waitFor(page, "the rollout's writes and its Event, in order", rolloutInOrder, name);
  await page.screenshot({ path: join(artifacts, "timeline-1-rollout.png"), fullPage: true });

  kubectl("scale", `deployment/${name}`, "--replicas=3");
  // The graph above has grown: bring the panel back on screen, where it
  // polls (a panel out of sight asks the components nothing).
  await page.evaluate(() => document.getElementById("timeline").scrollIntoView());
  await waitFor(page, "the scale and three bindings", () => {
    const items = [...document.querySelectorAll("#timeline li.timeline-entry")];
    // One entry per binding: the scheduler's write paired with its storing.
    return items.some((li) => li.dataset.verb === "scale") && items.filter((li) => li.dataset.verb === "bind").length === 3;
  });

  // Scrub back to the Deployment's first write.
  const first = await page.evaluate((name) => [...document.querySelectorAll("#timeline li.timeline-entry")]
    .findIndex((li) => li.dataset.object === `deployments.apps/default/${name}`), name);
  await page.evaluate((index) => {
    const slider = document.querySelector("#timeline .timeline-slider");
    slider.value = String(index);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }, first);
  await waitFor(page, "the list up to the Deployment's create, and its YAML at that revision with one replica", (index) => {
    const items = document.querySelectorAll("#timeline li.timeline-entry");
    const yaml = document.querySelector("#timeline .timeline-yaml");
    return items.length === index + 1 && items[index].getAttribute("aria-current") === "true" &&
      !!yaml && /replicas: 1\n/.test(yaml.textContent) &&
      document.querySelector("#timeline .timeline-live").getAttribute("aria-pressed") === "false";
  }, first);
  await page.screenshot({ path: join(artifacts, "timeline-2-scrubbed-back.png"), fullPage: true });

  // → one entry on, ← back again.
  await page.focus("#timeline");
  await page.keyboard.press("ArrowRight");
  await waitFor(page, "→ moves one entry on", (index) =>
    document.querySelectorAll("#timeline li.timeline-entry").length === index + 2, first);
  await page.keyboard.press("ArrowLeft");
  await waitFor(page, "← moves back", (index) =>
    document.querySelectorAll("#timeline li.timeline-entry").length === index + 1, first);

  await page.click("#timeline .timeline-live");
  await waitFor(page, "Live shows the newest entry again", () => {
    const items = [...document.querySelectorAll("#timeline li.timeline-entry")];
    return document.querySelector("#timeline .timeline-live").getAttribute("aria-pressed") === "true" &&
      items.length > 0 && items[items.length - 1].getAttribute("aria-current") === "true" &&
      items.some((li) => li.dataset.verb === "scale");
  });
  await page.screenshot({ path: join(artifacts, "timeline-3-live.png"), fullPage: true });
  console.log(`ok: scrubbed back to entry ${first + 1}, then live`);
});
