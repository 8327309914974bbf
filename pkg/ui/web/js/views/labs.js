// The Labs panel: `ctl lab` in the page. The server (pkg/ui/panel_labs.go)
// runs pkg/lab's own functions — the same Start, Check, NextHint and Reset
// that `ctl lab` runs — on the same progress, the ConfigMap
// kube-system/kplane-lab. So a lab started in a terminal shows up here, and
// a step checked here is the step `ctl lab check` goes on from. Every word
// about a lab comes from the server in the chosen language; this file holds
// none. The page polls /api/debug/labs once a second while the panel is on
// screen, to see what a terminal changed.
import { h } from "../dom.js";

const pollInterval = 1000; // ms: at most one request a second, only while visible

const panel = {
  lang: null, // "en" | "zh"; null until the server read navigator.language
  view: null, // the last /api/debug/labs answer
  viewText: "", // its JSON, to redraw only on a change
  answer: null, // the last action's answer: {outcome, lines, explain}
  busy: null, // the action running ("check", …), or null
  error: null, // the last request's failure, as text
  visible: true,
};

export function renderLabs(state, container) {
  const section = container.closest("section");
  new IntersectionObserver((entries) => {
    panel.visible = entries.some((entry) => entry.isIntersecting);
  }).observe(section);
  const redraw = () => draw(state, container);
  const poll = async () => {
    if (!panel.visible || document.visibilityState !== "visible" || panel.busy) return;
    await load(redraw);
  };
  load(redraw);
  setInterval(poll, pollInterval);
}

// load reads the labs and the progress; the first time, in the browser's
// language (the server applies `ctl lab`'s locale rule to it).
async function load(redraw) {
  const query = panel.lang ? `lang=${panel.lang}` : `locale=${encodeURIComponent(navigator.language || "")}`;
  try {
    const response = await fetch(`/api/debug/labs?${query}`);
    const text = await response.text();
    if (!response.ok) throw new Error(statusMessage(response.status, text));
    if (text === panel.viewText && !panel.error) return;
    panel.view = JSON.parse(text);
    panel.viewText = text;
    panel.lang = panel.view.lang;
    panel.error = null;
  } catch (err) {
    panel.error = err.message;
  }
  redraw();
}

// act runs one of `ctl lab`'s verbs on the server and shows its answer.
async function act(action, body, redraw) {
  panel.busy = action;
  panel.answer = null;
  redraw();
  try {
    const response = await fetch(`/api/debug/labs/${action}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ lang: panel.lang, ...body }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(statusMessage(response.status, text));
    const answer = JSON.parse(text);
    panel.answer = answer;
    panel.view = answer.view;
    panel.viewText = JSON.stringify(answer.view);
    panel.error = null;
  } catch (err) {
    panel.error = err.message;
  }
  panel.busy = null;
  redraw();
}

function statusMessage(code, text) {
  try {
    return JSON.parse(text).message || `${code}`;
  } catch {
    return `${code}: ${text}`;
  }
}

function draw(state, container) {
  const redraw = () => draw(state, container);
  const view = panel.view;
  const explain = h("p", { class: "explain" },
    "Each step is checked against the cluster's real state by pkg/lab — the same check ",
    h("code", {}, "ctl lab check"), " runs — and the progress lives in the ConfigMap ",
    h("code", {}, "kube-system/kplane-lab"), ", so a terminal and this page follow the same lab. In a terminal: ",
    h("code", {}, "ctl lab list | start NAME | check | hint | reset"), ".");
  const error = panel.error ? h("p", { class: "lab-error", role: "alert" }, "✖ ", panel.error) : null;
  if (!view) {
    container.replaceChildren(explain, error || h("p", { class: "muted" }, "loading…"));
    return;
  }
  const words = view.words;
  const languages = h("div", { class: "lab-languages", role: "group", "aria-label": "language" },
    [["en", "English"], ["zh", "中文"]].map(([lang, label]) =>
      h("button", { type: "button", "data-lang": lang, "aria-pressed": String(view.lang === lang),
        onclick: () => { panel.lang = lang; panel.answer = null; load(redraw); } }, label)));
  container.replaceChildren(...[explain, languages, error,
    view.progress ? current(state, view, redraw) : h("p", { class: "muted lab-none" }, view.noLab),
    panel.answer ? answerBox(state, panel.answer, words) : null,
    h("h3", {}, words.labs),
    h("table", { class: "lab-list" }, view.labs.map((l) =>
      h("tr", { "data-lab": l.name, "aria-current": view.progress && view.progress.lab === l.name ? "true" : null },
        h("td", {}, h("code", {}, l.name)),
        h("td", {}, h("strong", {}, l.title), h("div", { class: "muted" }, l.intro)),
        h("td", {}, h("button", { type: "button", "data-action": "start", disabled: panel.busy ? "" : null,
          onclick: () => act("start", { lab: l.name }, redraw) }, words.start))))),
  ].filter((child) => child !== null));
}

// current draws the started lab: its steps, the buttons, the last answer.
function current(state, view, redraw) {
  const { progress: p, words } = view;
  const busy = panel.busy ? "" : null;
  const button = (action) => h("button", { type: "button", "data-action": action, disabled: busy,
    onclick: () => act(action, {}, redraw) }, words[action]);
  const markers = { passed: "✓", current: "▶", todo: "○" };
  return h("div", { class: "lab-current", "data-lab": p.lab, "data-step": p.step, "data-finished": String(p.finished) },
    h("h3", {}, p.title, " ", h("code", { class: "muted" }, p.lab)),
    h("p", {}, p.intro),
    p.message ? h("p", { class: "lab-message" }, p.message) : null,
    p.filesNote ? h("p", { class: "muted" }, p.filesNote, " ",
      p.files.map((file) => h("a", { href: `/api/debug/labs/${p.lab}/files/${file}`, target: "_blank" }, file))) : null,
    h("ol", { class: "lab-steps" }, (p.steps || []).map((step, i) =>
      h("li", { "data-step-state": step.state, "data-step-index": i, class: `lab-step lab-step-${step.state}` },
        h("div", { class: "lab-step-head" }, h("span", { class: "lab-marker" }, markers[step.state]), " ",
          h("strong", {}, step.heading), " ", h("span", { class: "muted" }, `(${words[step.state]})`)),
        step.state === "todo" ? null : [
          h("p", {}, step.do),
          h("pre", { class: "lab-commands" }, step.commands.map((c) => h("div", {}, `$ ${c.line}`))),
          (step.hints || []).map((hint) => h("p", { class: "lab-hint" }, "💡 ", hint)),
          step.explain ? h("div", { class: "lab-explain" }, h("strong", {}, words.inside), ": ", explanation(state, step.explain, words)) : null,
        ]))),
    p.finished ? null : h("div", { class: "lab-buttons" }, button("check"), button("hint"), button("reset")),
    p.finished ? h("div", { class: "lab-buttons" }, button("reset")) : null,
    panel.busy ? h("p", { class: "muted", role: "status" }, panel.busy === "reset" ? words.resetting : words.checking) : null);
}

// answerBox shows what `ctl lab` would have printed for the last action.
function answerBox(state, answer, words) {
  return h("div", { class: `lab-answer lab-answer-${answer.outcome}`, role: "status", "data-outcome": answer.outcome },
    answer.lines.map((line) => h("p", {}, line)),
    answer.explain ? h("p", {}, h("strong", {}, words.inside), ": ", explanation(state, answer.explain, words)) : null);
}

// explanation renders an explanation's text with its `ctl` commands. A
// command of a teaching verb links to the panel that shows the same (by
// its section id: trace, why, queues, etcd) and selects the object it
// names; when that panel is not in the page, the command is shown to be
// run in a terminal.
function explanation(state, segments, words) {
  return segments.map((segment) => {
    if (!segment.command) return segment.text;
    const target = segment.panel && document.querySelector(`section#${segment.panel}`);
    if (!target) {
      return h("code", { class: "lab-command", title: segment.panel ? words.noPanel : null }, segment.command);
    }
    return h("button", { type: "button", class: "lab-link", "data-panel": segment.panel,
      title: words.openPanel,
      onclick: () => openPanel(state, segment, target) }, h("code", {}, segment.command), " →");
  });
}

// openPanel selects the object the command names (so every panel that
// follows the selection shows it), scrolls to the panel, and tells it
// which command was meant with a "kplane:open-panel" event.
function openPanel(state, segment, target) {
  if (segment.kind && segment.name) {
    for (const item of state.objects.values()) {
      const meta = item.object.metadata || {};
      if (item.kind.toLowerCase() === segment.kind.toLowerCase() && meta.name === segment.name &&
          (!segment.namespace || meta.namespace === segment.namespace)) {
        state.select(item.uid);
        break;
      }
    }
  }
  target.scrollIntoView({ behavior: "smooth", block: "start" });
  document.dispatchEvent(new CustomEvent("kplane:open-panel", { detail: segment }));
}
