// The panels still to come, each built on the components' debug API (the
// same one the ctl verbs named here read). Until a panel exists, the page
// says which command shows the same thing today, rather than showing made-up
// data. To add a panel: write views/<name>.js with a render function, its
// route on the server (pkg/ui/panel_<name>.go), and replace its entry here.
import { h } from "../dom.js";

// Every panel planned so far is built; the list stays as the place the
// next one starts from. Each entry: { id, title, command, about }.
export const upcomingPanels = [];

export function renderUpcoming(container) {
  // With nothing to come, the section is not shown at all.
  container.closest("section").hidden = upcomingPanels.length === 0;
  container.replaceChildren(h("div", { class: "upcoming" }, upcomingPanels.map((panel) =>
    h("article", { id: `panel-${panel.id}`, "data-panel": panel.id },
      h("h3", {}, panel.title),
      h("p", {}, panel.about, "."),
      h("p", { class: "muted" }, "Not in the page yet. Today: ", h("code", {}, panel.command))))));
}
