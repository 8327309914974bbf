// The clock panel: the cluster clock, as `ctl time` prints it, and buttons
// that move it forward as `ctl time advance` does. It polls the server once
// a second while the panel is on screen, and not at all otherwise.
import { h } from "../dom.js";
import { postJSON } from "./post.js";

const explanation = `A cluster started with "ctl up --virtual-clock" runs every component on one
cluster clock: the wall clock plus an offset kept in the ConfigMap kube-system/kplane-clock. Moving it
forward makes what waits on time happen in seconds: Lease expiry, the node-monitor grace period and
toleration seconds, Job back-off, CronJob schedules, TTLs.`;

const steps = [["+10 s", "10s"], ["+1 min", "1m"], ["+5 min", "5m"]];

// renderClock draws the panel into container and keeps it live.
export function renderClock(container) {
  const reading = h("pre", { class: "clock-reading", role: "status" }, "reading the cluster clock…");
  const result = h("p", { class: "muted clock-result", "aria-live": "polite" });
  const buttons = steps.map(([label, by]) => h("button", {
    type: "button", "data-advance": by,
    onclick: async (event) => {
      event.target.disabled = true;
      result.textContent = `advancing ${label}…`;
      try {
        const answer = await postJSON(`/api/debug/clock/advance?by=${by}`);
        result.textContent = `✔ ${answer.text}`;
        await poll(); // the reading shows what ctl time prints, at once
      } catch (error) {
        result.textContent = `✘ ${error.message}`;
      } finally {
        event.target.disabled = false;
      }
    },
  }, label));
  const controls = h("p", { class: "clock-buttons" }, buttons);
  const wallNote = h("p", { class: "clock-wall", hidden: "" },
    "⏱ This cluster runs on the real (wall) clock, which nothing can advance. Start one with ",
    h("code", {}, "ctl up --virtual-clock"), " to move time by hand.");
  container.replaceChildren(h("p", {}, explanation),
    h("p", { class: "muted" }, "Same as ", h("code", {}, "ctl time"), " and ", h("code", {}, "ctl time advance 60s")),
    reading, wallNote, controls, result);

  function show(answer) {
    reading.textContent = answer.text;
    reading.dataset.clusterTime = answer.clusterTime;
    reading.dataset.virtual = String(answer.virtual);
    wallNote.hidden = answer.virtual;
    controls.hidden = !answer.virtual;
  }
  async function poll() {
    try {
      const response = await fetch("/api/debug/clock", { credentials: "same-origin" });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.message || response.statusText);
      show(answer);
    } catch (error) {
      reading.textContent = `cannot read the cluster clock: ${error.message}`;
    }
  }
  // Poll only while the panel is on screen.
  let timer = null;
  new IntersectionObserver(([entry]) => {
    if (entry.isIntersecting && timer === null) {
      poll();
      timer = setInterval(poll, 1000);
    } else if (!entry.isIntersecting && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  }).observe(container);
}
