// A tiny helper to build DOM nodes: h("li", {class: "x"}, "text", child).
// Attributes whose value is null or undefined are skipped; "on…" attributes
// that are functions become event listeners.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else {
      element.setAttribute(name, value);
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

// objectButton is how every view names an object: a button that selects it.
export function objectButton(state, item, ...content) {
  const meta = item.object.metadata || {};
  return h("button", {
    class: "object",
    type: "button",
    "data-uid": item.uid,
    "data-kind": item.kind,
    "data-name": meta.name,
    "aria-pressed": state.selected === item.uid ? "true" : "false",
    onclick: () => state.select(item.uid),
  }, ...content);
}

// syncChildren makes parent's child elements exactly `wanted`, in order,
// touching the DOM only where they differ: a view that keeps its elements
// between renders (keyed by UID) calls it so that one changed pod costs one
// replaced element, not a thousand re-attached ones, and the browser lays
// out only what moved.
export function syncChildren(parent, wanted) {
  const current = parent.children;
  const sameLength = current.length === wanted.length;
  if (sameLength && wanted.every((element, i) => current[i] === element)) return;
  // The common case: some elements were rebuilt, none added or moved.
  if (sameLength && wanted.every((element, i) => current[i] === element || !element.isConnected)) {
    wanted.forEach((element, i) => {
      if (current[i] !== element) current[i].replaceWith(element);
    });
    return;
  }
  parent.replaceChildren(...wanted);
}
