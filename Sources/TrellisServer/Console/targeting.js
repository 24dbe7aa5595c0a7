// Targeting: the whole document in force (targeting.json with every runtime value applied) —
// replace it, roll it back to a revision, compare two revisions — and what is ready to be cleaned
// up. Every change sends the If-Match of the document as shown, so one made elsewhere first is
// refused (412), never overwritten.
import { get, getText, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";
import { jsonEditor, writeDocument } from "./editor.js";
import { revisionsSection } from "./revisions.js";

let context;
let view;
// What is shown: { etag, text (the document as the editor got it), history }.
let shown = null;
let editor = null;

export async function render(container, ctx) {
  context = ctx;
  shown = null;
  editor = null;
  view = h("div");
  container.append(h("h2", {}, "Targeting"), view);
  await load();
}

// True when the document changed since it was shown (the shell's banner for a change event).
export async function poll() {
  const fresh = await get("/admin/targeting");
  if (fresh.etag === shown?.etag) return false;
  await load({ keepEdit: true });
  const edited = editor.value !== shown.text ? " Your edit is kept: replacing with it will be refused; Reload shows theirs." : "";
  context.notify(`The targeting document was changed by ${shown.history.updatedBy || "someone"} (revision ${shown.history.revision}).${edited}`, "info");
  return true;
}

async function load({ keepEdit = false } = {}) {
  const [answer, history] = await Promise.all([get("/admin/targeting"), get("/admin/targeting/revisions")]);
  const edit = keepEdit && editor && editor.value !== shown.text ? editor.value : null;
  const text = JSON.stringify(answer.body, null, 2);
  shown = { etag: answer.etag, text, history: history.body };
  view.replaceChildren(
    headSection(history.body),
    editorSection(edit ?? text, edit !== null),
    revisionsSection(context, {
      what: "the targeting document",
      history: history.body,
      rollback: (revision) => write("POST", "/admin/targeting/rollback", { revision }, `Rolling the targeting document back to revision ${revision}`),
      text: (revision) => getText(`/admin/targeting/revisions/${revision}`),
    }),
    staleSection());
}

function headSection(head) {
  return h("p", { id: "targeting-head" }, head.revision
    ? `In force: revision ${head.revision} (${head.origin}), changed by ${head.updatedBy}, ${when(head.updatedAt)}. ` +
      "Rollouts, experiments and rules changed on their own pages are revisions of this document too."
    : "No revision is recorded yet.");
}

// A write of the whole document (If-Match: the version shown); then the page shows the outcome.
function write(method, path, body, what) {
  return writeDocument(context, {
    method, path, body, what, ifMatch: shown.etag, editor, load, note: "targeting-note",
    changedFirst: "Someone else changed the targeting document first. ", reloadLabel: "Reload the targeting document",
  });
}

function editorSection(text, edited) {
  const disabled = !context.canWrite;
  editor = jsonEditor("targeting", { label: "Targeting document (JSON, as targeting.json holds it)", text, disabled });
  const note = h("p", { id: "targeting-note", class: "row-note", role: "status" },
    edited ? "This is your edit; the document in force has changed since." : "");
  const form = h("form", { "aria-labelledby": "targeting-replace-title" },
    h("h3", { id: "targeting-replace-title" }, "Replace the whole document"),
    editor.elements,
    note,
    h("div", { class: "inline-form" }, h("button", { type: "submit", disabled }, "Replace the targeting document")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const sure = await confirmDialog("Replace the targeting document?",
      "Every rule, rollout and experiment that differs from the one in force changes at once, and those the document leaves out are retired.",
      "Replace");
    if (sure) await write("PUT", "/admin/targeting", editor.value, "Replacing the targeting document");
  });
  return form;
}

// GET /admin/targeting/stale: rollouts at 0 or 100 % (or killed) for a while, experiments
// concluded, and entries nothing refers to.
function staleSection() {
  const days = h("input", { id: "stale-days", type: "number", min: 0, max: 36500, step: 1, value: 30 });
  const result = h("div", { id: "stale-result" });
  const form = h("form", { class: "inline-form", "aria-labelledby": "stale-title" },
    h("label", { for: "stale-days" }, "Unchanged for at least (days)"), days,
    h("button", { type: "submit" }, "Find stale entries"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const report = (await get(`/admin/targeting/stale?days=${encodeURIComponent(days.value)}`)).body;
      const list = (items, text) => items.length ? h("ul", {}, items.map((item) => h("li", {}, text(item)))) : h("p", { class: "hint" }, "None.");
      result.replaceChildren(
        h("h4", {}, "Rollouts"), list(report.rollouts, (r) => `${r.key}: ${r.reason} since ${when(r.since)}`),
        h("h4", {}, "Experiments concluded"), list(report.experiments, (e) => `${e.key}: winner ${e.winner} since ${when(e.since)}`),
        h("h4", {}, "Referred to by no screen, route or rule"),
        list(["rules", "rollouts", "experiments"].filter((kind) => report.unreferenced[kind].length),
          (kind) => `${kind}: ${report.unreferenced[kind].join(", ")}`));
    } catch (error) {
      context.notify(explain(error, "Finding stale entries"), "error");
    }
  });
  return h("section", { "aria-labelledby": "stale-title" }, h("h3", { id: "stale-title" }, "Ready to clean up"), form, result);
}
