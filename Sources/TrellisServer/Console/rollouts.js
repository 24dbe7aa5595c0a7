// Rollouts: each percentage as a slider and a number field, where it comes from, who changed it
// last, its schedule, its guard (shown under its row on demand); create, apply, kill and revive.
// Every change sends the If-Match of the version shown, so a change someone else made first is
// refused (412), never overwritten.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";
import { guardPanel, guardJSON } from "./guards.js";

let context;
let body;
// Each rollout shown, by key: { value, etag, dirty, row, fields, guardRow, guard, guardJSON }.
const rows = new Map();

export async function render(container, ctx) {
  context = ctx;
  rows.clear();
  body = h("tbody");
  container.append(
    h("h2", {}, "Rollouts"),
    h("table", { class: "grid", "aria-describedby": "rollouts-caption" },
      h("caption", { id: "rollouts-caption" },
        "Move a slider or type a percentage, then Apply. A change made elsewhere shows here within seconds."),
      h("thead", {}, h("tr", {},
        ["Rollout", "State", "Percentage", "Source", "Last changed", "Schedule", "Guard", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
      body),
    createForm());
  await load();
}

// True when something shown changed (the shell's banner for a change event).
export async function poll() {
  const [listed, guards] = await Promise.all([get("/admin/rollouts"), guardsByKey()]);
  const list = listed.body.rollouts;
  if (list.length !== rows.size || list.some((value) => !rows.has(value.key))) {
    await load();
    return true;
  }
  let changed = false;
  for (const [key, shown] of rows) {
    const guard = guards.get(key) ?? null;
    if (guardJSON(guard) === shown.guardJSON) continue;
    changed = true;
    showGuard(shown, guard);
    if (!shown.guardRow.hidden) await shown.guard.refresh();
    context.notify(`The guard of rollout ${key} was changed by someone else.`, "info");
  }
  for (const value of list) {
    const shown = rows.get(value.key);
    if (JSON.stringify(value) === JSON.stringify(shown.value)) continue;
    const fresh = await get(`/admin/rollouts/${encodeURIComponent(value.key)}`);
    const who = fresh.body.updatedBy || "someone";
    changed = true;
    if (shown.dirty) {
      if (shown.stale && JSON.stringify(shown.stale.body) === JSON.stringify(fresh.body)) continue;
      shown.fields.note.textContent =
        `${who} changed this while you were editing (now ${describe(fresh.body)}). Applying your value will be refused; Reload shows theirs.`;
      shown.stale = fresh;
    } else {
      update(shown, fresh);
      context.notify(`Rollout ${value.key} was changed by ${who}: now ${describe(fresh.body)}.`, "info");
    }
  }
  return changed;
}

async function load() {
  const [listed, guards] = await Promise.all([get("/admin/rollouts"), guardsByKey()]);
  const list = listed.body.rollouts;
  const answers = await Promise.all(list.map((value) => get(`/admin/rollouts/${encodeURIComponent(value.key)}`)));
  rows.clear();
  body.replaceChildren(...answers.flatMap((answer) => {
    const shown = makeRow(answer.body.key);
    rows.set(answer.body.key, shown);
    update(shown, answer);
    showGuard(shown, guards.get(answer.body.key) ?? null);
    return [shown.row, shown.guardRow];
  }));
}

// Each rollout's guard (GET /admin/guards), by key.
async function guardsByKey() {
  const guards = (await get("/admin/guards")).body.guards;
  return new Map(guards.filter((view) => view.guards.startsWith("rollouts/")).map((view) => [view.guards.slice("rollouts/".length), view]));
}

// A rollout's guard in its row, in brief: the action and the metrics, or none.
function showGuard(shown, view) {
  shown.guardJSON = guardJSON(view);
  shown.fields.guardSummary.textContent = view ? `${view.action}: ${view.checks.map((check) => check.metric).join(", ")}` : "none";
}

const describe = (value) => `${value.percentage}%, ${value.enabled ? "on" : "killed"}`;

function makeRow(key) {
  const disabled = !context.canWrite;
  const shown = { dirty: false };
  const fields = {
    description: h("span", { class: "description" }),
    state: h("td"),
    slider: h("input", { type: "range", min: 0, max: 100, step: 1, disabled, "aria-label": `${key} percentage (slider)` }),
    number: h("input", { type: "number", min: 0, max: 100, step: 0.01, disabled, "aria-label": `${key} percentage`, class: "percentage" }),
    apply: h("button", { type: "button", disabled: true, "aria-label": `Apply the percentage of ${key}` }, "Apply"),
    revert: h("button", { type: "button", disabled: true, "aria-label": `Revert the percentage of ${key}` }, "Revert"),
    note: h("p", { class: "row-note", role: "status" }),
    source: h("td"),
    changed: h("td"),
    schedule: h("td"),
    toggle: h("button", { type: "button", disabled }),
    guardSummary: h("span", { class: "guard-summary" }),
    guardButton: h("button", { type: "button", "aria-expanded": "false", "aria-controls": `guard-row-${key}`, "aria-label": `Guard of ${key}` }, "Guard"),
  };
  const edited = (value) => {
    fields.slider.value = value;
    fields.number.value = value;
    shown.dirty = Number(value) !== shown.value.percentage;
    fields.apply.disabled = disabled || !shown.dirty;
    fields.revert.disabled = !shown.dirty;
  };
  fields.slider.addEventListener("input", () => edited(fields.slider.value));
  fields.number.addEventListener("input", () => edited(fields.number.value));
  fields.number.addEventListener("keydown", (event) => { if (event.key === "Enter") fields.apply.click(); });
  fields.apply.addEventListener("click", () => change(shown, "PUT", "", { percentage: Number(fields.number.value) }, `Setting ${key} to ${fields.number.value}%`));
  fields.revert.addEventListener("click", () => reload(shown));
  fields.toggle.addEventListener("click", () => toggle(shown));
  shown.fields = fields;
  shown.row = h("tr", { "data-key": key },
    h("th", { scope: "row" }, h("span", { class: "key" }, key), fields.description),
    fields.state,
    h("td", {}, h("div", { class: "percent" }, fields.slider, fields.number, h("span", { "aria-hidden": "true" }, "%"), fields.apply, fields.revert), fields.note),
    fields.source, fields.changed, fields.schedule,
    h("td", { class: "guard-cell" }, fields.guardSummary, fields.guardButton),
    h("td", {}, fields.toggle));
  // The guard, under the row while its button is pressed (loaded each time it opens).
  shown.guard = guardPanel({ kind: "rollouts", key }, context, {
    prefix: `guard-${key}`, arm: (variant) => (variant === "on" ? "admitted users" : "users not admitted"), guarded: `rollout ${key}`,
    onLoad: (view) => showGuard(shown, view) });
  shown.guardRow = h("tr", { id: `guard-row-${key}`, class: "guard-row", "data-guard-row": key, hidden: true },
    h("td", { colspan: 8 }, h("h3", {}, `Guard of ${key}`), shown.guard.element));
  fields.guardButton.addEventListener("click", async () => {
    const opening = shown.guardRow.hidden;
    shown.guardRow.hidden = !opening;
    fields.guardButton.setAttribute("aria-expanded", String(opening));
    if (opening) await shown.guard.load();
  });
  return shown;
}

// Shows `answer` (a GET of the rollout) in the row, dropping any edit.
function update(shown, answer) {
  const value = answer.body;
  const { fields } = shown;
  shown.value = value;
  shown.etag = answer.etag;
  shown.dirty = false;
  shown.stale = null;
  fields.description.textContent = value.description || "";
  fields.state.textContent = value.enabled ? "On" : "Killed";
  fields.state.className = value.enabled ? "on" : "killed";
  fields.slider.value = value.percentage;
  fields.number.value = value.percentage;
  fields.apply.disabled = true;
  fields.revert.disabled = true;
  fields.note.textContent = "";
  fields.source.textContent = value.source !== "runtime" ? value.source
    : value.config ? `runtime (config: ${value.config.percentage}%)` : "runtime (created here)";
  fields.changed.textContent = value.updatedBy ? `${value.updatedBy}, ${when(value.updatedAt)}` : "—";
  fields.schedule.textContent = value.schedule.length
    ? value.schedule.map((step) => `${step.percentage}% at ${when(step.at)}`).join("; ")
    : "none";
  fields.toggle.textContent = value.enabled ? "Kill" : "Revive";
  fields.toggle.setAttribute("aria-label", `${value.enabled ? "Kill" : "Revive"} ${value.key}`);
  fields.toggle.className = value.enabled ? "danger" : "";
}

async function reload(shown) {
  update(shown, await get(`/admin/rollouts/${encodeURIComponent(shown.value.key)}`));
}

async function toggle(shown) {
  const { key, enabled, percentage } = shown.value;
  if (!enabled) return change(shown, "PUT", "", { enabled: true }, `Reviving ${key} at ${percentage}%`);
  const sure = await confirmDialog(`Kill ${key}?`,
    `Every user stops getting ${key} on their next request. The percentage (${percentage}%) is kept for a later revive, and any schedule is cancelled.`,
    `Kill ${key}`);
  if (sure) await change(shown, "POST", "/kill", undefined, `Killing ${key}`);
}

// A write on the rollout as shown (If-Match: the version shown); then the row shows the outcome.
function change(shown, method, suffix, payload, what) {
  return context.writing(() => write(shown, method, suffix, payload, what));
}

async function write(shown, method, suffix, payload, what) {
  const key = shown.value.key;
  try {
    const result = await call(method, `/admin/rollouts/${encodeURIComponent(key)}${suffix}`, { body: payload, ifMatch: shown.etag });
    context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    await reload(shown);
  } catch (error) {
    context.notify(explain(error, what), "error");
    if (error.status === 412) {
      shown.fields.note.replaceChildren("Someone else changed this rollout first. ",
        h("button", { type: "button", onclick: () => reload(shown).then(() => context.notify("")) }, `Reload ${key}`));
    }
  }
}

function createForm() {
  const disabled = !context.canWrite;
  const key = h("input", { id: "new-rollout-key", required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}", disabled });
  const percentage = h("input", { id: "new-rollout-percentage", type: "number", min: 0, max: 100, step: 0.01, value: 0, required: true, disabled });
  const description = h("input", { id: "new-rollout-description", disabled });
  const form = h("form", { class: "inline-form", "aria-labelledby": "new-rollout-title" },
    h("h3", { id: "new-rollout-title" }, "New rollout"),
    h("label", { for: "new-rollout-key" }, "Key"), key,
    h("label", { for: "new-rollout-percentage" }, "Percentage"), percentage,
    h("label", { for: "new-rollout-description" }, "Description"), description,
    h("button", { type: "submit", disabled }, "Create rollout"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const payload = { key: key.value.trim(), percentage: Number(percentage.value) };
    if (description.value.trim()) payload.description = description.value.trim();
    const what = `Creating rollout ${payload.key}`;
    await context.writing(async () => {
      try {
        const result = await call("POST", "/admin/rollouts", { body: payload });
        form.reset();
        await load();
        context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
      } catch (error) {
        context.notify(explain(error, what), "error");
      }
    });
  });
  return form;
}
