// Shared by the browser scenarios: reading the environment the Go test
// sets, running the real kubectl, launching headless Debian Chromium, and
// waiting for the page with a deadline that, when it passes, says what the
// page showed and saves a screenshot.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// env returns an environment variable the Go test must have set.
export const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (the Go test sets it)`);
  return value;
};

export const waitLimit = 90_000; // a deadline for each wait, not a performance claim

const started = Date.now();
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

// kubectl runs the real kubectl (KPLANE_KUBECTL) and returns its output.
export function kubectl(...args) {
  const out = execFileSync(env("KPLANE_KUBECTL"), args, { encoding: "utf8" });
  console.log(`kubectl ${args.join(" ")}: ${out.trim()}`);
  return out;
}

// waitFor polls fn in the page until it returns true, or fails with what
// the page's panels last showed (and a screenshot, failure.png, among the
// artifacts).
export async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: waitLimit, polling: 200 });
  } catch (err) {
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll("section[id]")].map((s) => `${s.id}: ${s.querySelector(".body")?.innerText ?? ""}`).join("\n"));
    await page.screenshot({ path: join(env("KPLANE_ARTIFACT_DIR"), "failure.png"), fullPage: true });
    throw new Error(`waiting for ${what}: ${err.message}\nthe page showed:\n${shown}`);
  }
  console.log(`ok after ${elapsed()}: ${what}`);
}

// withBrowser launches headless Chromium (KPLANE_CHROMIUM, default
// /usr/bin/chromium) with a fresh profile, runs fn(page), and closes it.
export async function withBrowser(fn) {
  const userDataDir = mkdtempSync(join(tmpdir(), "kplane-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.KPLANE_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1500, height: 1000 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    page.on("pageerror", (err) => console.log(`page error: ${err.message}`));
    await fn(page);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
