// The faults and cluster-clock panels, driven as a student would: kill the
// controller-manager's leader and watch the standby take the Lease, advance
// the virtual clock, compact etcd, inject an API error and clear it, pause
// a kubelet and watch its node go NotReady. Run by faults_test.go.
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const shot = (page, name) => page.screenshot({ path: join(env("KPLANE_ARTIFACT_DIR"), name), fullPage: true });

// kubectlFails runs kubectl and returns its error output, failing if it succeeds.
function kubectlFails(...args) {
  try {
    execFileSync(env("KPLANE_KUBECTL"), args, { encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    console.log(`kubectl ${args.join(" ")} failed as wanted: ${err.stderr.trim()}`);
    return err.stderr;
  }
  throw new Error(`kubectl ${args.join(" ")} succeeded under an injected API error`);
}

// clickFault clicks a fault button (confirming it) and waits for its answer.
async function clickFault(page, id, wanted) {
  await page.click(`button[data-fault="${id}"]`);
  await waitFor(page, `the ${id} answer "${wanted}"`,
    (w) => (document.querySelector(".fault-result")?.textContent ?? "").includes(w), wanted);
}

await withBrowser(async (page) => {
  page.on("dialog", (dialog) => dialog.accept()); // the confirmation each button asks
  await page.goto(env("KPLANE_UI_LOGIN"));

  // Kill the controller-manager's leader (SIGTERM: it releases the Lease):
  // the Leader election panel shows the standby holding it.
  const lease = "#leases tr[data-lease='kube-controller-manager']";
  await page.locator("#leases").scrollIntoViewIfNeeded();
  await waitFor(page, "the controller-manager's Lease held", (sel) => !!document.querySelector(sel)?.dataset.holder, lease);
  const leader = await page.getAttribute(lease, "data-holder");
  await page.locator("#faults").scrollIntoViewIfNeeded();
  await page.selectOption('select[name="signal"]', "TERM");
  await clickFault(page, "kill-controller-manager", "the leader of the Lease kube-system/kube-controller-manager");
  await page.locator("#leases").scrollIntoViewIfNeeded();
  await waitFor(page, "another controller-manager holding the Lease", ([sel, old]) => {
    const holder = document.querySelector(sel)?.dataset.holder;
    return !!holder && holder !== old;
  }, [lease, leader]);
  console.log(`the Lease went from ${leader} to ${await page.getAttribute(lease, "data-holder")}`);
  await shot(page, "leader-killed.png");

  // The clock: virtual, and +1 min moves it at least a minute.
  await page.locator("#clock").scrollIntoViewIfNeeded();
  await waitFor(page, "the virtual cluster clock", () =>
    document.querySelector(".clock-reading")?.dataset.virtual === "true");
  const before = Date.parse(await page.getAttribute(".clock-reading", "data-cluster-time"));
  await page.click('button[data-advance="1m"]');
  await waitFor(page, "the cluster clock a minute later", (b) =>
    Date.parse(document.querySelector(".clock-reading").dataset.clusterTime) - b >= 60_000, before);
  await shot(page, "clock-advanced.png");

  await page.locator("#faults").scrollIntoViewIfNeeded();
  await clickFault(page, "compact", "etcd compacted at revision");
  await shot(page, "compacted.png");

  // An API error on configmaps list: kubectl fails with it, then works once cleared.
  await page.fill('input[name="resource"]', "configmaps");
  await page.fill('input[name="verb"]', "list");
  await page.selectOption('select[name="code"]', "500");
  await page.fill('input[name="for"]', "5m");
  await clickFault(page, "api-error", "fault injected (rule");
  await shot(page, "api-error.png");
  const stderr = kubectlFails("get", "configmaps", "-n", "default");
  if (!stderr.includes("injected fault")) throw new Error(`kubectl's error does not name the injected fault: ${stderr}`);
  await clickFault(page, "api-error-clear", "cleared 1 api-error rule");
  kubectl("get", "configmaps", "-n", "default");

  // Pause node1's kubelet; past the 50 s grace period its node is NotReady.
  await page.fill('input[name="node"]', "node1");
  await clickFault(page, "pause-kubelet", "node1's kubelet stopped its heartbeat");
  await page.locator("#clock").scrollIntoViewIfNeeded();
  await page.click('button[data-advance="1m"]');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = kubectl("get", "node", "node1", "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}").trim();
    if (ready === "Unknown" || ready === "False") break;
    if (Date.now() > deadline) throw new Error(`node1 stayed Ready=${ready} after its kubelet was paused and the clock advanced`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  await shot(page, "node-notready.png");
  await page.locator("#faults").scrollIntoViewIfNeeded();
  await clickFault(page, "resume-kubelet", "node1's kubelet resumed its heartbeat");
});
