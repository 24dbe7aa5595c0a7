// Strings: every locale's table with what it lacks of the default's (its users see the default's
// text there), one locale's table to publish as the next revision (a 422's problems at their
// lines, in the table or in the screens it would break), its revisions rolled back to and
// compared. Every change sends the If-Match of the table's head as shown.
import { ApiError, get, getText } from "./api.js";
import { h, when } from "./dom.js";
import { jsonEditor, writeDocument } from "./editor.js";
import { revisionsSection } from "./revisions.js";

// The change stream says nothing of string tables: the page is polled.
export const polled = true;

let context;
let view;
// The locale being edited, and what is shown of it: { etag, head, text } (etag null for a new locale).
let locale = null;
let shown = null;
let editor = null;

export async function render(container, ctx) {
  context = ctx;
  shown = null;
  editor = null;
  view = h("div");
  container.append(h("h2", {}, "Strings"), view);
  await load();
}

// True when the tables changed since they were shown (the shell's banner for a change event).
export async function poll() {
  const fresh = locale ? await table(locale) : null;
  if ((fresh?.etag ?? null) === (shown?.etag ?? null)) return false;
  await load({ keepEdit: true });
  context.notify(`The ${locale} table was changed by ${shown.head?.updatedBy || "someone"} (revision ${shown.head?.revision}).`, "info");
  return true;
}

// GET /admin/strings/{locale}, or null for a locale without a table (404).
async function table(tag) {
  try {
    return await get(`/admin/strings/${encodeURIComponent(tag)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

async function load({ keepEdit = false } = {}) {
  const coverage = (await get("/admin/strings")).body;
  locale ??= coverage.locales.find((entry) => !entry.default)?.locale ?? coverage.defaultLocale;
  const edit = keepEdit && editor && editor.value !== shown?.text ? editor.value : null;
  const answer = await table(locale);
  const parts = [coverageTable(coverage)];
  if (!answer) {
    shown = { etag: null, head: null, text: "" };
    parts.push(h("p", { id: "strings-head" }, `${locale} has no table yet: publishing one answers its users from it.`),
      editorSection(edit ?? "{\n}\n", edit !== null));
  } else {
    const head = answer.body;
    // The revision as it was published (its author's layout), not the parsed table re-encoded.
    const text = await getText(`/admin/strings/${encodeURIComponent(locale)}/revisions/${head.revision}`);
    const history = (await get(`/admin/strings/${encodeURIComponent(locale)}/revisions`)).body;
    shown = { etag: answer.etag, head, text };
    parts.push(
      h("p", { id: "strings-head" },
        `${locale}: serving revision ${head.revision} (${head.origin}${head.served ? "" : ", not served"}), ${head.keys} keys` +
        `${head.default ? ", the default locale" : ""}, changed by ${head.updatedBy}, ${when(head.updatedAt)}.`),
      editorSection(edit ?? text, edit !== null),
      revisionsSection(context, {
        what: `the ${locale} table`,
        history,
        rollback: (revision) => write("POST", `/admin/strings/${encodeURIComponent(locale)}/rollback`, { revision },
          `Rolling the ${locale} table back to revision ${revision}`),
        text: (revision) => getText(`/admin/strings/${encodeURIComponent(locale)}/revisions/${revision}`),
      }));
  }
  view.replaceChildren(...parts);
}

// Each locale: its keys, the share of the default's it translates, what it lacks and has beyond them.
function coverageTable(coverage) {
  const percent = (share) => share === undefined ? "—" : `${Math.floor(share * 1000) / 10} %`;
  const list = (keys) => keys?.length ? keys.join(", ") : "—";
  const choose = (tag) => { locale = tag; load(); };
  // Choosing what to look at changes nothing: its controls' ids start with `locale-`.
  const other = h("input", { id: "locale-other", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "fr, pt-BR…" });
  const form = h("form", { class: "inline-form", "aria-label": "Another locale" },
    h("label", { for: "locale-other" }, "Another locale"), other, h("button", { id: "locale-other-show", type: "submit" }, "Show its table"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (other.value.trim()) choose(other.value.trim());
  });
  return h("div", {},
    h("table", { class: "grid", id: "strings-table" },
      h("caption", {}, `Translations of the default locale's (${coverage.defaultLocale}) keys, by locale.`),
      h("thead", {}, h("tr", {}, ["Locale", "Keys", "Translated", "Not translated", "Not in the default", ""].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, coverage.locales.map((entry) => h("tr", { "data-locale": entry.locale },
        h("th", { scope: "row" }, h("span", { class: "key" }, entry.locale), entry.default ? h("span", { class: "description" }, "default") : ""),
        h("td", {}, String(entry.keys)),
        h("td", {}, entry.default ? "—" : percent(entry.translated)),
        h("td", {}, entry.default ? "—" : list(entry.missing)),
        h("td", {}, entry.default ? "—" : list(entry.unknown)),
        h("td", {}, h("button", {
          id: `locale-show-${entry.locale}`, type: "button", "aria-label": `Show the ${entry.locale} table`, "aria-pressed": String(entry.locale === locale),
          onclick: () => choose(entry.locale),
        }, "Show")))))),
    form);
}

// A write of the locale's table (If-Match: its head as shown); then the page shows the outcome.
function write(method, path, body, what) {
  return writeDocument(context, {
    method, path, body, what, ifMatch: shown.etag ?? undefined, editor, load, note: "strings-note",
    changedFirst: `Someone else changed the ${locale} table first. `, reloadLabel: "Reload the table",
  });
}

function editorSection(text, edited) {
  const disabled = !context.canWrite;
  editor = jsonEditor("strings", { label: `The ${locale} table (JSON: keys to ICU messages)`, text, disabled });
  const form = h("form", { "aria-labelledby": "strings-publish-title" },
    h("h3", { id: "strings-publish-title" }, `Publish a revision of ${locale}`),
    editor.elements,
    h("p", { id: "strings-note", class: "row-note", role: "status" }, edited ? "This is your edit; the table served has changed since." : ""),
    h("div", { class: "inline-form" }, h("button", { type: "submit", disabled }, "Publish the table")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    write("PUT", `/admin/strings/${encodeURIComponent(locale)}`, editor.value, `Publishing the ${locale} table`);
  });
  return form;
}
