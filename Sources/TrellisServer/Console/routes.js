// Routes: the in-app route table served — its routes at a glance, the whole table to publish as
// the next revision (a 422's problems at their lines), its revisions rolled back to and compared.
// Every change sends the If-Match of the table's head as shown.
import { ApiError, get, getText } from "./api.js";
import { h, when } from "./dom.js";
import { jsonEditor, writeDocument } from "./editor.js";
import { revisionsSection } from "./revisions.js";

let context;
let view;
// What is shown: { etag, head, text } (etag null while the server has no route table).
let shown = null;
let editor = null;

export async function render(container, ctx) {
  context = ctx;
  shown = null;
  editor = null;
  view = h("div");
  container.append(h("h2", {}, "Routes"), view);
  await load();
}

// True when the table changed since it was shown (the shell's banner for a change event).
export async function poll() {
  const fresh = await table();
  if ((fresh?.etag ?? null) === shown?.etag) return false;
  await load({ keepEdit: true });
  const edited = editor.value !== shown.text ? " Your edit is kept: publishing it will be refused; Reload shows theirs." : "";
  context.notify(`The route table was changed by ${shown.head?.updatedBy || "someone"} (revision ${shown.head?.revision}).${edited}`, "info");
  return true;
}

// GET /admin/routes, or null while the server has none (404).
async function table() {
  try {
    return await get("/admin/routes");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

async function load({ keepEdit = false } = {}) {
  const answer = await table();
  const edit = keepEdit && editor && editor.value !== shown.text ? editor.value : null;
  if (!answer) {
    shown = { etag: null, head: null, text: "" };
    view.replaceChildren(
      h("p", { id: "routes-head" }, "This server has no route table: add routes.json to the configuration directory, or publish one here."),
      editorSection(edit ?? '{\n  "routes": []\n}\n', edit !== null));
    return;
  }
  const head = answer.body;
  // The revision as it was published (its author's layout), not the parsed table re-encoded.
  const text = await getText(`/admin/routes/revisions/${head.revision}`);
  const history = (await get("/admin/routes/revisions")).body;
  shown = { etag: answer.etag, head, text };
  view.replaceChildren(
    h("p", { id: "routes-head" },
      `Serving revision ${head.revision} (${head.origin}${head.served ? "" : ", not served: the configuration's table is"}), ` +
      `${head.routes} routes, changed by ${head.updatedBy}, ${when(head.updatedAt)}.`),
    routeList(head.table?.routes || []),
    editorSection(edit ?? text, edit !== null),
    revisionsSection(context, {
      what: "the route table",
      history,
      rollback: (revision) => write("POST", "/admin/routes/rollback", { revision }, `Rolling the route table back to revision ${revision}`),
      text: (revision) => getText(`/admin/routes/revisions/${revision}`),
    }));
}

// Each route: its pattern, where it leads, how it is presented, what it requires.
function routeList(routes) {
  const destination = (route) => route.screen ? `screen ${route.screen}` : route.native ? `native ${route.native}`
    : route.external ? `external ${route.external}` : "—";
  const presentation = (route) => route.external ? "external"
    : typeof route.presentation === "object" && route.presentation ? Object.values(route.presentation).join(" ")
    : route.presentation || "push";
  return h("table", { class: "grid", id: "routes-table" },
    h("caption", {}, "The routes served, in the order they are matched."),
    h("thead", {}, h("tr", {}, ["Pattern", "Leads to", "Presentation", "Requires", "Redirects"].map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, routes.map((route) => h("tr", { "data-pattern": route.pattern },
      h("th", { scope: "row" }, h("span", { class: "key" }, route.pattern), h("span", { class: "description" }, route.title || "")),
      h("td", {}, destination(route)),
      h("td", {}, presentation(route)),
      h("td", {}, route.requires ? JSON.stringify(route.requires) + (route.otherwise ? `, otherwise ${route.otherwise}` : "") : "—"),
      h("td", {}, (route.redirects || []).map((redirect) => (redirect.when ? `${JSON.stringify(redirect.when)} → ` : "") + redirect.to).join("; ") || "—")))));
}

// A write of the table (If-Match: its head as shown); then the page shows the outcome.
function write(method, path, body, what) {
  return writeDocument(context, {
    method, path, body, what, ifMatch: shown.etag ?? undefined, editor, load, note: "routes-note",
    changedFirst: "Someone else changed the route table first. ", reloadLabel: "Reload the route table",
  });
}

function editorSection(text, edited) {
  const disabled = !context.canWrite;
  editor = jsonEditor("routes", { label: "Route table (JSON, as routes.json holds it)", text, disabled });
  const form = h("form", { "aria-labelledby": "routes-publish-title" },
    h("h3", { id: "routes-publish-title" }, "Publish a revision"),
    editor.elements,
    h("p", { id: "routes-note", class: "row-note", role: "status" }, edited ? "This is your edit; the table served has changed since." : ""),
    h("div", { class: "inline-form" }, h("button", { type: "submit", disabled }, "Publish the route table")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    write("PUT", "/admin/routes", editor.value, "Publishing the route table");
  });
  return form;
}
