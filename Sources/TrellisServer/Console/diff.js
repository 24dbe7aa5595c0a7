// A side-by-side line diff of two texts (longest common subsequence of lines): each row is a line
// of the left text, of the right, or of both.
import { h } from "./dom.js";

// [{ left, right }] with 1-based line numbers (either may be absent) and the lines' text.
export function diffRows(leftText, rightText) {
  const a = leftText.split("\n");
  const b = rightText.split("\n");
  // common[i][j]: the length of the longest common subsequence of a[i…] and b[j…].
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const rows = [];
  let removed = [];
  let added = [];
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ left: removed[k], right: added[k] });
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      rows.push({ left: { number: i + 1, text: a[i] }, right: { number: j + 1, text: b[j] }, same: true });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && common[i + 1][j] >= common[i][j + 1])) {
      removed.push({ number: i + 1, text: a[i] });
      i++;
    } else {
      added.push({ number: j + 1, text: b[j] });
      j++;
    }
  }
  flush();
  return rows;
}

// The diff as a table; unchanged stretches longer than 6 lines keep 3 lines of context each side.
export function diffTable(leftTitle, leftText, rightTitle, rightText) {
  const rows = diffRows(leftText, rightText);
  const changed = rows.map((row) => !row.same);
  const near = (index) => changed.slice(Math.max(0, index - 3), index + 4).some(Boolean);
  const body = h("tbody");
  let skipped = 0;
  rows.forEach((row, index) => {
    if (row.same && !near(index)) {
      skipped++;
      return;
    }
    if (skipped) body.append(unchanged(skipped));
    skipped = 0;
    body.append(h("tr", { class: row.same ? "" : "changed" },
      h("td", { class: "number" }, row.left?.number ?? ""), h("td", { class: row.left && !row.same ? "removed" : "" }, row.left?.text ?? ""),
      h("td", { class: "number" }, row.right?.number ?? ""), h("td", { class: row.right && !row.same ? "added" : "" }, row.right?.text ?? "")));
  });
  if (skipped) body.append(unchanged(skipped));
  if (!changed.some(Boolean)) body.replaceChildren(h("tr", {}, h("td", { colspan: 4 }, "The two revisions are the same, line for line.")));
  return h("table", { class: "diff" },
    h("colgroup", {}, h("col", { class: "number" }), h("col"), h("col", { class: "number" }), h("col")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", colspan: 2 }, leftTitle), h("th", { scope: "col", colspan: 2 }, rightTitle))),
    body);
}

const unchanged = (count) => h("tr", { class: "skipped" }, h("td", { colspan: 4 }, `${count} unchanged ${count === 1 ? "line" : "lines"}`));
