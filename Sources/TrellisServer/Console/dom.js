// Elements made from data, never from HTML strings: text is always text.

// h("button", { type: "button", onclick: f, class: "x", "aria-label": "…" }, child, …)
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

// "2026-11-22T10:04:11Z" as the reader's local date and time; "—" for none.
export function when(text) {
  if (!text) return "—";
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString();
}

let nextId = 0;
// A unique element id, for labels.
export const uid = (prefix) => `${prefix}-${++nextId}`;

// The shared confirmation dialog; resolves true when confirmed.
export function confirmDialog(title, text, action) {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-ok").textContent = action;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}

const svgNamespace = "http://www.w3.org/2000/svg";
// An SVG element, as h() makes HTML ones: presentation attributes only (the console's policy allows
// no inline style).
export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}
