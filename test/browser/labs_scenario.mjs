// Issue 20's Done-when 3, "the page shows the same lab", in a real browser:
// the Labs panel against `ctl lab` on a `ctl up` cluster. labs_test.go
// starts both and runs this script with ui_scenario.mjs's variables and:
//   KPLANE_CTL   the built ctl, to run `ctl lab check` as a student would
// The scenario: start the ReplicaSet lab in the page and see the same lab
// and step in `ctl lab check`; do step 1 with kubectl, press Check, see it
// pass with its explanation; skip step 2, press Check, see the failure and
// its hint; switch to Chinese; finish the lab in a terminal and see the page
// follow; Reset. A screenshot of each state is saved.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env, kubectl, waitFor, withBrowser } from "./lib.mjs";

const loginURL = env("KPLANE_UI_LOGIN");
const artifacts = env("KPLANE_ARTIFACT_DIR");

// ctlLab runs `ctl lab ARGS` in English and returns its exit code and output.
function ctlLab(...args) {
  const run = spawnSync(env("KPLANE_CTL"), ["lab", ...args], { encoding: "utf8", env: { ...process.env, LANG: "C" } });
  const out = run.stdout + run.stderr;
  console.log(`ctl lab ${args.join(" ")} (exit ${run.status}): ${out.trim()}`);
  return { code: run.status, out };
}

function expect(what, ok, detail) {
  if (!ok) throw new Error(`${what}: ${detail}`);
  console.log(`ok: ${what}`);
}

const labPanel = "#labs .lab-current[data-lab='replicaset']";

await withBrowser(async (page) => {
  await page.goto(loginURL);
  await waitFor(page, "the list of labs", () => document.querySelectorAll("#labs .lab-list tr[data-lab]").length > 5);

  // 1. Start the lab in the page: `ctl lab check` sees the same lab and step.
  await page.click("#labs .lab-list tr[data-lab='replicaset'] button[data-action='start']");
  await waitFor(page, "the lab started at step 1", (sel) =>
    !!document.querySelector(`${sel}[data-step='0'] li[data-step-state='current']`), labPanel);
  await page.screenshot({ path: join(artifacts, "labs-1-started.png"), fullPage: true });
  let check = ctlLab("check", "--wait", "0");
  expect("ctl lab check sees step 1 of the page's lab", check.code === 1 &&
    check.out.includes("Step 1 is not done yet") && check.out.includes("kplane-lab/nginx-rs.yaml"), check.out);

  // 2. Do step 1 with kubectl (the lab's file, from the page), press Check.
  const yaml = await page.evaluate(async () => (await fetch("/api/debug/labs/replicaset/files/nginx-rs.yaml")).text());
  const file = join(mkdtempSync(join(tmpdir(), "kplane-lab-")), "nginx-rs.yaml");
  writeFileSync(file, yaml);
  kubectl("apply", "-f", file);
  await waitFor(page, "three ng-rs pods Running", () =>
    [...document.querySelectorAll("#nodes [data-pod^='ng-rs-']")].filter((p) => p.dataset.phase === "Running").length === 3);
  await page.click("#labs button[data-action='check']");
  await waitFor(page, "step 1 passed, with its explanation", () => {
    const answer = document.querySelector("#labs .lab-answer[data-outcome='passed']");
    return !!answer && answer.innerText.includes("Step 1 passed") && answer.innerText.includes("ctl why replicaset/ng-rs");
  });
  await waitFor(page, "step 2 is current", (sel) =>
    !!document.querySelector(`${sel}[data-step='1'] li[data-step-index='1'][data-step-state='current']`), labPanel);
  await page.screenshot({ path: join(artifacts, "labs-2-step1-passed.png"), fullPage: true });

  // 3. Skip step 2 (the pods are not deleted) and press Check: the failure
  // and its hint, as `ctl lab check` prints them.
  await page.click("#labs button[data-action='check']");
  await waitFor(page, "step 2 fails with its hint", () => {
    const answer = document.querySelector("#labs .lab-answer[data-outcome='not-yet']");
    return !!answer && answer.innerText.includes("Step 2 is not done yet") && answer.innerText.includes("Hint: Delete the pods by their label");
  });
  await page.screenshot({ path: join(artifacts, "labs-3-step2-skipped.png"), fullPage: true });

  // 4. In Chinese.
  await page.click("#labs button[data-lang='zh']");
  await waitFor(page, "the lab in Chinese", () => {
    const text = document.querySelector("#labs .body").innerText;
    return text.includes("第 2/2 步：删除 Pod") && text.includes("ReplicaSet ng-rs 补回被删除的 Pod") && text.includes("检查");
  });
  await page.screenshot({ path: join(artifacts, "labs-4-chinese.png"), fullPage: true });

  // 5. Finish the lab in a terminal: the page follows without a reload.
  kubectl("delete", "pods", "-l", "replicaset=test");
  check = ctlLab("check");
  expect("ctl lab check passes step 2", check.code === 0 && check.out.includes("Step 2 passed"), check.out);
  await waitFor(page, "the page shows the lab finished", (sel) =>
    !!document.querySelector(`${sel}[data-finished='true']`) && document.querySelector("#labs .lab-message").innerText.includes("实验 replicaset 已完成"), labPanel);
  await page.screenshot({ path: join(artifacts, "labs-5-finished.png"), fullPage: true });

  // 6. Reset in the page: the lab's objects and the progress are gone.
  await page.click("#labs button[data-action='reset']");
  await waitFor(page, "no lab started", () =>
    !!document.querySelector("#labs .lab-none") && document.querySelector("#labs .lab-answer[data-outcome='reset']") !== null);
  check = ctlLab("check");
  expect("ctl lab check sees no lab", check.code === 1 && check.out.includes("No lab started"), check.out);
});
