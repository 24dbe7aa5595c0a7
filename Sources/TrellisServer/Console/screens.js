// Screens: the revisions of one screen with author and time; publish (a 422's problems at their
// lines); stage to a percentage, promote, abandon, roll back; how the served and the staged
// revision fare (render beacons) and the guard that may abandon a staged one; the preview as a
// chosen user sees it. Every change sends the If-Match of the screen's head as shown.
import { call, get, getText, describeWrite, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";
import { guardPanel, count, percent } from "./guards.js";
import { viewportFields, previewFrame } from "./preview.js";
import { diffTable } from "./diff.js";
import { jsonEditor } from "./editor.js";

let context;
let view;
// The screen shown: { id, head, etag }.
let shown = null;

export async function render(container, ctx) {
  context = ctx;
  shown = null;
  view = h("div");
  const list = (await get("/admin/screens")).body.screens;
  const picker = h("select", { id: "screen-picker" }, list.map((screen) => h("option", { value: screen.id }, screen.id)));
  picker.addEventListener("change", () => open(picker.value));
  container.append(
    h("h2", {}, "Screens"),
    h("div", { class: "inline-form" }, h("label", { for: "screen-picker" }, "Screen"), picker),
    view);
  if (list.length) await open(list[0].id);
}

export async function poll() {
  if (!shown) return false;
  const fresh = await get(`/admin/screens/${encodeURIComponent(shown.id)}`);
  if (fresh.etag === shown.etag) return false;
  context.notify(`Screen ${shown.id} was changed by ${fresh.body.updatedBy}: revision ${fresh.body.revision} is served now.`, "info");
  await open(shown.id, { keepEditor: true });
  return true;
}

async function open(id, { keepEditor = false } = {}) {
  const head = await get(`/admin/screens/${encodeURIComponent(id)}`);
  const history = (await get(`/admin/screens/${encodeURIComponent(id)}/revisions`)).body.revisions;
  const editorText = keepEditor ? view.querySelector("#screen-editor")?.value : null;
  shown = { id, head: head.body, etag: head.etag };
  const document = editorText ?? await revisionText(id, head.body.revision);
  const health = healthSection(id, head.body);
  const guard = guardPanel({ kind: "screens", key: id }, context, {
    prefix: "screen-guard", arm: (revision) => `revision ${revision}`, guarded: `a staged revision of ${id}` });
  view.replaceChildren(
    headSection(head.body),
    health.element,
    h("section", { id: "screen-guard", "aria-labelledby": "screen-guard-title" }, h("h3", { id: "screen-guard-title" }, "Guard"), guard.element),
    revisionsSection(history, head.body),
    compareSection(id, history),
    editorSection(document),
    previewSection(id, head.body));
  await Promise.all([health.load(), guard.load()]);
}

const revisionText = (id, revision) => getText(`/admin/screens/${encodeURIComponent(id)}/revisions/${revision}`);

// A write on the screen shown (If-Match: its head as shown), then the screen again.
function change(method, suffix, payload, what) {
  return context.writing(() => write(method, suffix, payload, what));
}

async function write(method, suffix, payload, what) {
  try {
    const result = await call(method, `/admin/screens/${encodeURIComponent(shown.id)}${suffix}`, { body: payload, ifMatch: shown.etag });
    await open(shown.id);
    context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    return result;
  } catch (error) {
    context.notify(explain(error, what), "error");
    throw error;
  }
}

function headSection(head) {
  const disabled = !context.canWrite;
  const staged = head.staged;
  const parts = [
    h("h3", {}, `Screen ${head.id}`),
    h("p", { id: "screen-head" },
      `Serving revision ${head.revision} (${head.origin}), changed by ${head.updatedBy}, ${when(head.updatedAt)}. `,
      staged ? `Revision ${staged.revision} is staged to ${staged.percentage}% of users.` : "Nothing is staged."),
  ];
  if (staged) {
    const percentage = h("input", { id: "stage-percentage", type: "number", min: 0, max: 100, step: 0.01, value: staged.percentage, disabled });
    const form = h("form", { class: "inline-form", "aria-label": "Staged revision" },
      h("label", { for: "stage-percentage" }, `Stage revision ${staged.revision} to (%)`), percentage,
      h("button", { type: "submit", disabled }, "Set stage percentage"),
      h("button", { type: "button", disabled, onclick: () => change("POST", "/promote", undefined, `Promoting revision ${staged.revision}`).catch(() => {}) },
        `Promote revision ${staged.revision} to everybody`),
      h("button", { type: "button", disabled, class: "danger", onclick: () => change("POST", "/abandon", undefined, `Abandoning revision ${staged.revision}`).catch(() => {}) },
        "Abandon the staged revision"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      change("PUT", "/stage", { percentage: Number(percentage.value) }, `Staging revision ${staged.revision} to ${percentage.value}%`).catch(() => {});
    });
    parts.push(form);
  }
  return h("section", { "aria-label": "Served revision" }, parts);
}

// How the revision staged, or else the one served, fares with the apps it reached
// (GET …/revisions/{n}/health): its users and those of them who sent a render beacon, beside the
// revision it is compared with. { element, load() }.
function healthSection(id, head) {
  const revision = head.staged?.revision ?? head.revision;
  const body = h("div", { id: "health-body" });
  const load = async () => {
    body.setAttribute("aria-busy", "true");
    try {
      body.replaceChildren(...healthFigures((await get(`/admin/screens/${encodeURIComponent(id)}/revisions/${revision}/health`)).body));
    } catch (error) {
      // 503 while the event store cannot be read: the rest of the page still works.
      body.replaceChildren(h("p", { class: "error" }, explain(error, `Loading the health of revision ${revision}`)));
    } finally {
      body.removeAttribute("aria-busy");
    }
  };
  const element = h("section", { id: "screen-health", "aria-labelledby": "health-title" },
    h("h3", { id: "health-title" }, "Health"),
    h("p", { class: "hint" },
      "The users each revision was served to (recorded while a revision is staged, or sent by apps as exposures), and how many of them sent a render beacon for the screen (POST /v1/events, \"render\")."),
    body,
    h("button", { type: "button", id: "health-refresh", onclick: load }, "Refresh health"));
  return { element, load };
}

function healthFigures(answer) {
  const rows = [answer, answer.against].filter(Boolean);
  const multiple = answer.multipleExposures;
  return [
    h("table", { class: "grid compact", id: "health-table" },
      h("caption", {}, answer.against
        ? `Revision ${answer.revision} (${answer.served}) compared with revision ${answer.against.revision} (${answer.against.served})`
        : `Revision ${answer.revision} (${answer.served}); nothing is staged to compare it with`),
      h("thead", {}, h("tr", {}, ["Revision", "State", "Users", "Users with render failures", "Render-failure rate"]
        .map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows.map((figures) => h("tr", { "data-revision": figures.revision, "data-served": figures.served },
        h("th", { scope: "row" }, String(figures.revision)),
        h("td", { class: "served" }, figures.served),
        h("td", { class: "figure users" }, count(figures.users)),
        h("td", { class: "figure failing" }, count(figures.usersWithRenderFailures)),
        h("td", { class: "figure rate" }, percent(figures.renderFailureRate)))))),
    h("p", { id: "health-multiple" },
      `${count(multiple)} ${multiple === 1 ? "user was" : "users were"} served both revisions and ${multiple === 1 ? "is" : "are"} counted in neither.`),
    h("p", { id: "health-as-of", class: "hint", "data-as-of": answer.asOf }, `As of ${when(answer.asOf)}.`),
  ];
}

function revisionsSection(history, head) {
  const disabled = !context.canWrite;
  const rows = history.slice().reverse().map((revision) => {
    const served = revision.revision === head.revision;
    const staged = revision.revision === head.staged?.revision;
    const rollback = async () => {
      const sure = await confirmDialog(`Roll back ${head.id} to revision ${revision.revision}?`,
        `Revision ${revision.revision}'s content becomes a new revision, served to everybody at once.`, "Roll back");
      if (sure) await change("POST", "/rollback", { revision: revision.revision }, `Rolling back to revision ${revision.revision}`).catch(() => {});
    };
    return h("tr", { "data-revision": revision.revision },
      h("th", { scope: "row" }, String(revision.revision)),
      h("td", {}, served ? "served" : staged ? "staged" : ""),
      h("td", {}, revision.origin + (revision.copiedFrom ? ` of ${revision.copiedFrom}` : "")),
      h("td", {}, revision.createdBy),
      h("td", {}, when(revision.createdAt)),
      h("td", {}, served ? "" : h("button", { type: "button", disabled, onclick: rollback }, `Roll back to revision ${revision.revision}`)));
  });
  return h("section", { "aria-labelledby": "revisions-title" },
    h("h3", { id: "revisions-title" }, "Revisions"),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["Revision", "State", "Origin", "Author", "Created", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows)));
}

// Two revisions' JSON side by side, the lines that differ marked.
function compareSection(id, history) {
  const numbers = history.map((revision) => revision.revision);
  const pick = (fieldId, selected) => h("select", { id: fieldId },
    numbers.map((number) => h("option", { value: number, selected: number === selected }, `revision ${number}`)));
  const from = pick("compare-from", numbers.at(-2) ?? numbers[0]);
  const to = pick("compare-to", numbers.at(-1));
  const result = h("div", { id: "compare-result" });
  const form = h("form", { class: "inline-form", "aria-labelledby": "compare-title" },
    h("label", { for: "compare-from" }, "From"), from,
    h("label", { for: "compare-to" }, "To"), to,
    h("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const [left, right] = await Promise.all([revisionText(id, from.value), revisionText(id, to.value)]);
      result.replaceChildren(diffTable(`Revision ${from.value}`, left, `Revision ${to.value}`, right));
    } catch (error) {
      context.notify(explain(error, "Comparing"), "error");
    }
  });
  return h("section", { "aria-labelledby": "compare-title" }, h("h3", { id: "compare-title" }, "Compare two revisions"), form, result);
}

// The editor: the screen's JSON with line numbers; a 422 marks each problem's line and lists them.
function editorSection(text) {
  const disabled = !context.canWrite;
  const editor = jsonEditor("screen", { label: "Screen JSON", text, disabled });
  const stage = h("input", { id: "publish-stage", type: "number", min: 0, max: 100, step: 0.01, disabled });
  const form = h("form", { "aria-labelledby": "publish-title" },
    h("h3", { id: "publish-title" }, "Publish a revision"),
    editor.elements,
    h("div", { class: "inline-form" },
      h("label", { for: "publish-stage" }, "Stage to (%, empty for everybody)"), stage,
      h("button", { type: "submit", disabled }, "Publish")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    editor.clearProblems();
    const query = stage.value === "" ? "" : `?stage=${encodeURIComponent(stage.value)}`;
    try {
      await change("PUT", query, editor.value, stage.value === "" ? "Publishing" : `Publishing staged to ${stage.value}%`);
    } catch (error) {
      editor.showProblems(error);
    }
  });
  return form;
}

// The screen drawn as one user sees it (GET /preview/{id}); while a revision is staged, the served
// and the staged revision side by side (`revision=N`), at the same platform and viewport.
function previewSection(id, head) {
  const user = h("input", { id: "preview-user", value: "u1" });
  const platform = h("select", { id: "preview-platform" }, ["ios", "android", "web"].map((name) => h("option", { value: name }, name)));
  const viewport = viewportFields("preview");
  const holder = h("div");
  const draw = () => {
    const query = viewport.apply(new URLSearchParams({ user: user.value, platform: platform.value }));
    const who = `as user ${user.value} on ${platform.value}`;
    if (!head.staged) {
      holder.replaceChildren(previewFrame(id, query, who));
      return;
    }
    const revision = (number, label) => {
      const revisionQuery = new URLSearchParams(query);
      revisionQuery.set("revision", number);
      return h("figure", { "data-preview": label },
        h("figcaption", {}, `${label === "served" ? "Served" : "Staged"}: revision ${number}`),
        previewFrame(id, revisionQuery, `revision ${number} (${label}) ${who}`));
    };
    holder.replaceChildren(h("div", { class: "previews" },
      revision(head.revision, "served"), revision(head.staged.revision, "staged")));
  };
  const form = h("form", { class: "inline-form", "aria-labelledby": "preview-title" },
    h("label", { for: "preview-user" }, "User id"), user,
    h("label", { for: "preview-platform" }, "Platform"), platform,
    viewport.elements,
    h("button", { type: "submit" }, "Show preview"));
  form.addEventListener("submit", (event) => { event.preventDefault(); draw(); });
  draw();
  return h("section", { "aria-labelledby": "preview-title" }, h("h3", { id: "preview-title" }, "Preview"), form, holder);
}
