// A pod's phase as the page shows it: a colour (style.css), a shape and a
// word, so a student who cannot tell green from red reads it all the same.
// "Terminating" is not a phase: like kubectl's STATUS column, the page
// shows it when metadata.deletionTimestamp is set.
import { h } from "../dom.js";

export const phases = {
  Running: "●",
  Pending: "◌",
  Succeeded: "✔",
  Failed: "✖",
  Unknown: "?",
  Terminating: "⌛",
};

export function phaseOf(pod) {
  if (pod.metadata && pod.metadata.deletionTimestamp) return "Terminating";
  const phase = (pod.status && pod.status.phase) || "Pending";
  return phase in phases ? phase : "Unknown";
}

// phaseLabel is the marker and the word.
export function phaseLabel(phase) {
  return h("span", { class: "phase" },
    h("span", { class: "phase-marker", "aria-hidden": "true" }, phases[phase]), " ", phase);
}

// legend explains the markers once, above the nodes.
export function legend() {
  return h("div", { class: "legend", "aria-label": "pod phases" },
    Object.keys(phases).map((phase) => h("span", { class: `phase-${phase}` }, " ", phaseLabel(phase))));
}
