// The revisions of a document kept whole (the targeting document, the route table): each with its
// origin, author and time and "Roll back to revision N" (after a confirmation), and two revisions'
// text compared side by side.
import { h, when, confirmDialog } from "./dom.js";
import { explain } from "./api.js";
import { diffTable } from "./diff.js";

// `history`: the answer of GET …/revisions (the head's members and `revisions`, oldest first).
// `rollback(number)` makes the write; `text(number)` reads a revision as stored.
export function revisionsSection(context, { what, history, rollback, text }) {
  const disabled = !context.canWrite;
  const rows = history.revisions.slice().reverse().map((revision) => {
    const served = revision.revision === history.revision;
    const confirmed = async () => {
      const sure = await confirmDialog(`Roll ${what} back to revision ${revision.revision}?`,
        `Revision ${revision.revision}'s content becomes a new revision of ${what}, in force at once.`, "Roll back");
      if (sure) await rollback(revision.revision);
    };
    return h("tr", { "data-revision": revision.revision },
      h("th", { scope: "row" }, String(revision.revision)),
      h("td", {}, served ? "in force" : ""),
      h("td", {}, revision.origin + (revision.copiedFrom ? ` of ${revision.copiedFrom}` : "")),
      h("td", {}, revision.createdBy),
      h("td", {}, when(revision.createdAt)),
      h("td", {}, served ? "" : h("button", { type: "button", disabled, onclick: confirmed }, `Roll back to revision ${revision.revision}`)));
  });
  return h("section", { "aria-labelledby": "revisions-title" },
    h("h3", { id: "revisions-title" }, "Revisions"),
    rows.length
      ? h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, ["Revision", "State", "Origin", "Author", "Created", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, rows))
      : h("p", {}, `No revision of ${what} is recorded yet.`),
    rows.length > 1 ? compareForm(context, history.revisions.map((revision) => revision.revision), text) : null);
}

function compareForm(context, numbers, text) {
  const pick = (fieldId, selected) => h("select", { id: fieldId },
    numbers.map((number) => h("option", { value: number, selected: number === selected }, `revision ${number}`)));
  const from = pick("compare-from", numbers.at(-2));
  const to = pick("compare-to", numbers.at(-1));
  const result = h("div", { id: "compare-result" });
  const form = h("form", { class: "inline-form", "aria-labelledby": "compare-title" },
    h("h4", { id: "compare-title" }, "Compare two revisions"),
    h("label", { for: "compare-from" }, "From"), from,
    h("label", { for: "compare-to" }, "To"), to,
    h("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const [left, right] = await Promise.all([text(from.value), text(to.value)]);
      result.replaceChildren(diffTable(`Revision ${from.value}`, left, `Revision ${to.value}`, right));
    } catch (error) {
      context.notify(explain(error, "Comparing"), "error");
    }
  });
  return h("div", {}, form, result);
}
