// The audit log: the newest entries, filtered by resource (as the API filters: `rollouts/x`, or
// `screens` for everything under it) and by token name; new entries are added as they happen.
import { get } from "./api.js";
import { h, when } from "./dom.js";

const limit = 200;
let context;
let body;
let resource;
let actor;
// The id of the newest entry shown: the next poll asks for those after it.
let next = 0;

export async function render(container, ctx) {
  context = ctx;
  resource = h("input", { id: "audit-resource", placeholder: "rollouts/gold-banner or screens" });
  actor = h("input", { id: "audit-actor", placeholder: "ops-bot" });
  const form = h("form", { class: "inline-form", "aria-label": "Filter the audit log" },
    h("label", { for: "audit-resource" }, "Resource"), resource,
    h("label", { for: "audit-actor" }, "Token name"), actor,
    h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  body = h("tbody");
  container.append(
    h("h2", {}, "Audit log"),
    form,
    h("table", { class: "grid" },
      h("caption", {}, `The newest ${limit} entries that match, newest first; new ones appear as they happen.`),
      h("thead", {}, h("tr", {}, ["#", "When", "Token", "Action", "Resource", "Before → after"].map((name) => h("th", { scope: "col" }, name)))),
      body));
  await load();
}

export async function poll() {
  const answer = (await get(query(`after=${next}`))).body;
  const fresh = answer.entries.filter(matches);
  next = answer.next;
  if (!fresh.length) return false;
  body.querySelector("td[colspan]")?.parentElement.remove(); // "No entries match."
  body.prepend(...fresh.reverse().map(row));
  context.notify(`${fresh.length} new audit ${fresh.length === 1 ? "entry" : "entries"}.`, "info");
  return true;
}

async function load() {
  const answer = (await get(query(`limit=${limit}`))).body;
  next = answer.next;
  body.replaceChildren(...answer.entries.filter(matches).reverse().map(row));
  if (!body.children.length) body.append(h("tr", {}, h("td", { colspan: 6 }, "No entries match.")));
}

function query(extra) {
  const name = resource.value.trim();
  return `/admin/audit?${extra}${name ? `&resource=${encodeURIComponent(name)}` : ""}`;
}

// The API filters by resource; the token name is filtered here.
const matches = (entry) => !actor.value.trim() || entry.actor === actor.value.trim();

function row(entry) {
  const change = h("details", {},
    h("summary", {}, summary(entry)),
    h("pre", { class: "body" }, `before: ${JSON.stringify(entry.before, null, 1)}\nafter: ${JSON.stringify(entry.after, null, 1)}`));
  return h("tr", { "data-entry": entry.id },
    h("th", { scope: "row" }, String(entry.id)),
    h("td", {}, when(entry.at)),
    h("td", {}, entry.actor),
    h("td", {}, entry.action),
    h("td", {}, entry.resource),
    h("td", {}, change));
}

// What changed, in a few words: the members whose values differ.
function summary(entry) {
  const before = entry.before && typeof entry.before === "object" ? entry.before : {};
  const after = entry.after && typeof entry.after === "object" ? entry.after : {};
  if (!entry.before) return "created";
  if (!entry.after) return "removed";
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  if (!changed.length) return "no visible difference";
  return changed.slice(0, 3).map((key) => `${key}: ${short(before[key])} → ${short(after[key])}`).join("; ");
}

const short = (value) => {
  const text = value === undefined ? "—" : JSON.stringify(value);
  return text.length > 40 ? text.slice(0, 39) + "…" : text;
};
