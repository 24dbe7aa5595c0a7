// A JSON editor with line numbers, for the documents pages publish whole (a screen, the targeting
// document, the route table, a rule): paste or load a file; a refused document's problems listed
// under it, each with its line and column (the button selects that line) and its line number marked.
import { h } from "./dom.js";
import { call, describeWrite, explain, problemText } from "./api.js";

// A write of a document shown in `editor` (If-Match: its head as shown, `ifMatch`); then `load`
// shows the outcome. A refusal's problems mark the editor's lines; a 412 offers, in the element
// `note`, to load what someone else changed first (`changedFirst`, the button's `reloadLabel`).
export function writeDocument(context, { method, path, body, what, ifMatch, editor, load, note, changedFirst, reloadLabel }) {
  return context.writing(async () => {
    editor.clearProblems();
    try {
      const result = await call(method, path, { body, ifMatch });
      await load();
      context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
      editor.showProblems(error);
      if (error.status === 412) {
        document.getElementById(note).replaceChildren(changedFirst,
          h("button", { type: "button", onclick: () => load().then(() => context.notify("")) }, reloadLabel));
      }
    }
  });
}

// Fields named `${prefix}-editor`, `${prefix}-file`, `${prefix}-errors`. `elements` go in a form;
// `showProblems(error)` lists an ApiError's `errors` (a 422's or 409's) and marks their lines.
export function jsonEditor(prefix, { label, text = "", disabled = false, rows = 18, file = true }) {
  const editor = h("textarea", { id: `${prefix}-editor`, spellcheck: "false", rows, disabled, "aria-describedby": `${prefix}-errors` });
  editor.value = text;
  const gutter = h("div", { class: "gutter", "aria-hidden": "true" });
  const errors = h("ol", { id: `${prefix}-errors`, class: "errors", "aria-label": `Problems in the ${label}` });
  const upload = h("input", { id: `${prefix}-file`, type: "file", accept: ".json,application/json", disabled });
  // Line number → the problem's message, for the gutter's marks.
  const marked = new Map();
  const drawGutter = () => {
    const count = editor.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: count }, (_, i) =>
      h("div", { class: marked.has(i + 1) ? "marked" : "", title: marked.get(i + 1) }, String(i + 1))));
    gutter.scrollTop = editor.scrollTop;
  };
  upload.addEventListener("change", async () => {
    if (!upload.files.length) return;
    editor.value = await upload.files[0].text();
    drawGutter();
  });
  editor.addEventListener("input", drawGutter);
  editor.addEventListener("scroll", () => { gutter.scrollTop = editor.scrollTop; });
  const goTo = (line) => {
    const lines = editor.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    editor.focus();
    editor.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  };
  drawGutter();
  return {
    textarea: editor,
    elements: [
      file ? h("div", { class: "inline-form" }, h("label", { for: upload.id }, "Load a file into the editor"), upload) : null,
      h("label", { for: editor.id }, label),
      h("div", { class: `editor${rows < 12 ? " short" : ""}` }, gutter, editor),
      errors,
    ],
    get value() { return editor.value; },
    set value(text) {
      editor.value = text;
      this.clearProblems();
    },
    clearProblems() {
      marked.clear();
      errors.replaceChildren();
      drawGutter();
    },
    // Lists the problems of `error` (nothing when it has none); true when there were some.
    showProblems(error) {
      marked.clear();
      errors.replaceChildren();
      for (const problem of error?.problem?.errors || []) {
        if (problem.line) marked.set(problem.line, problem.message);
        const where = problem.line ? `Line ${problem.line}, column ${problem.column}` : "The document";
        errors.append(h("li", {},
          problem.line ? h("button", { type: "button", class: "link", onclick: () => goTo(problem.line) }, where) : where,
          `: ${problem.message}`, problem.path && problem.path !== "$" ? ` (${problem.path})` : ""));
      }
      drawGutter();
      return errors.children.length > 0;
    },
  };
}

// A problem's `errors` as a list of text (for answers that have no editor to point into).
export function problemList(error) {
  const problems = error?.problem?.errors || [];
  return problems.length ? h("ul", { class: "errors" }, problems.map((problem) => h("li", {}, problemText(problem)))) : null;
}
