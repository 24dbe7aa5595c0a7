// Named rules: each rule's expression (as targeting.json writes it under `rules`), where it comes
// from and who changed it last; redefine, retire (409 naming what still uses it) or hand back to
// targeting.json; define a new one. Every change sends the If-Match of the rule as shown.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";
import { jsonEditor } from "./editor.js";

let context;
let list;
// Each rule shown, by name: { value, etag, card, editor, note }.
const shown = new Map();

export async function render(container, ctx) {
  context = ctx;
  list = h("div", { id: "rules-list" });
  container.append(
    h("h2", {}, "Rules"),
    h("p", { class: "hint" }, "A rule is checked with every rule, screen and route that refers to it before it changes: a mistake is refused with its line and column, a rule still in use cannot be retired."),
    list,
    createForm());
  await load();
}

// True when something shown changed (the shell's banner for a change event).
export async function poll() {
  const values = (await get("/admin/rules")).body.rules;
  if (values.length !== shown.size || values.some((value) => !shown.has(value.name))) {
    await load();
    return true;
  }
  let changed = false;
  for (const value of values) {
    const entry = shown.get(value.name);
    if (JSON.stringify(value) === JSON.stringify(entry.value)) continue;
    changed = true;
    if (entry.editor.value !== pretty(entry.value.rule)) {
      entry.note.textContent = `${value.updatedBy || "Someone"} changed this rule while you were editing. Applying yours will be refused; Reload shows theirs.`;
      continue;
    }
    await reload(value.name);
    context.notify(`Rule ${value.name} was changed by ${value.updatedBy || "someone"}.`, "info");
  }
  return changed;
}

const pretty = (expression) => JSON.stringify(expression, null, 2);
const path = (name) => `/admin/rules/${encodeURIComponent(name)}`;

async function load() {
  const values = (await get("/admin/rules")).body.rules;
  const answers = await Promise.all(values.map((value) => get(path(value.name))));
  shown.clear();
  list.replaceChildren(...answers.map((answer) => {
    const entry = card(answer);
    shown.set(answer.body.name, entry);
    return entry.card;
  }));
  if (!answers.length) list.append(h("p", {}, "No rules."));
}

async function reload(name) {
  const entry = card(await get(path(name)));
  shown.get(name).card.replaceWith(entry.card);
  shown.set(name, entry);
}

// A write on rule `name` as shown (If-Match: its version shown); then the page shows the outcome.
function change(name, method, suffix, payload, what) {
  return context.writing(async () => {
    const entry = shown.get(name);
    entry.editor.clearProblems();
    try {
      const result = await call(method, path(name) + suffix, { body: payload, ifMatch: entry.etag });
      context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
      if (method === "DELETE" && result.status !== 202) await load();
      else await reload(name);
    } catch (error) {
      context.notify(explain(error, what), "error");
      entry.editor.showProblems(error);
      if (error.status === 412) {
        entry.note.replaceChildren("Someone else changed this rule first. ",
          h("button", { type: "button", onclick: () => reload(name).then(() => context.notify("")) }, `Reload ${name}`));
      }
    }
  });
}

function card({ body: value, etag }) {
  const disabled = !context.canWrite;
  const name = value.name;
  const editor = jsonEditor(`rule-${name}`, { label: `Expression of ${name}`, text: pretty(value.rule), disabled, rows: 6, file: false });
  const note = h("p", { class: "row-note", role: "status" });
  const source = value.source === "runtime"
    ? `runtime${value.config ? " (targeting.json has another definition)" : " (defined here)"}`
    : "targeting.json";
  const retire = async () => {
    const sure = await confirmDialog(`Retire ${name}?`,
      `${name} stops existing for every screen, route and rule. The server refuses this while anything still refers to it.`, `Retire ${name}`);
    if (sure) await change(name, "DELETE", "", undefined, `Retiring rule ${name}`);
  };
  const reset = async () => {
    const sure = await confirmDialog(`Hand ${name} back to targeting.json?`,
      `The runtime definition is dropped and targeting.json's is in force again: ${JSON.stringify(value.config)}.`, "Reset");
    if (sure) await change(name, "POST", "/reset", undefined, `Resetting rule ${name} to targeting.json`);
  };
  const form = h("form", { "aria-label": `Rule ${name}` },
    editor.elements,
    note,
    h("div", { class: "inline-form" },
      h("button", { type: "submit", disabled }, `Apply ${name}`),
      value.config ? h("button", { type: "button", disabled, onclick: reset }, `Reset ${name} to targeting.json`) : null,
      h("button", { type: "button", class: "danger", disabled, onclick: retire }, `Retire ${name}`)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    change(name, "PUT", "", editor.value, `Changing rule ${name}`);
  });
  const card = h("article", { class: "change", "data-rule": name, "aria-label": `Rule ${name}` },
    h("h3", {}, name),
    h("p", {}, `Source ${source}; last changed ${value.updatedBy ? `by ${value.updatedBy}, ${when(value.updatedAt)}` : "—"}.`),
    form);
  return { value, etag, card, editor, note };
}

function createForm() {
  const disabled = !context.canWrite;
  const name = h("input", { id: "new-rule-name", required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}", disabled });
  const editor = jsonEditor("new-rule", { label: "Expression", text: '{ "attribute": "country", "op": "in", "value": ["DE", "AT"] }', disabled, rows: 4, file: false });
  const form = h("form", { "aria-labelledby": "new-rule-title" },
    h("h3", { id: "new-rule-title" }, "New rule"),
    h("div", { class: "inline-form" }, h("label", { for: "new-rule-name" }, "Name"), name),
    editor.elements,
    h("button", { type: "submit", disabled }, "Define rule"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = name.value.trim();
    const what = `Defining rule ${key}`;
    editor.clearProblems();
    // PUT defines and redefines alike: a new rule must not replace one this page shows.
    if (shown.has(key)) {
      context.notify(`${what}: rule ${key} exists; change it above instead.`, "error");
      return;
    }
    context.writing(async () => {
      try {
        const result = await call("PUT", path(key), { body: editor.value });
        name.value = "";
        await load();
        context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
      } catch (error) {
        context.notify(explain(error, what), "error");
        editor.showProblems(error);
      }
    });
  });
  return form;
}
