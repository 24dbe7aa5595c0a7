// Experiments: weights (with the share of users each variant would get), status and winner,
// overrides for QA users, the metrics each names and a link to its results; create one. Below, the
// metrics experiments can name: define, redefine, delete. Every change sends the If-Match of the
// version shown. The results of one experiment (#results/KEY) are the page `results`, in
// results.js's stead (the binary embeds a fixed list of files): see the end of this file.
import { call, get, describeWrite, explain } from "./api.js";
import { h, svg, when, uid, confirmDialog } from "./dom.js";
import { jsonEditor } from "./editor.js";

let context;
let list;
// Each experiment shown, by key: { value, etag, card }.
const shown = new Map();

export async function render(container, ctx) {
  context = ctx;
  list = h("div", { id: "experiments-list" });
  container.append(h("h2", {}, "Experiments"), list, createForm(), metricsSection());
  await Promise.all([load(), loadMetrics()]);
}

// True when something shown changed (the shell's banner for a change event).
export async function poll() {
  const metricsChanged = await pollMetrics();
  const values = (await get("/admin/experiments")).body.experiments;
  if (values.length !== shown.size || values.some((value) => !shown.has(value.key))) {
    await load();
    return true;
  }
  let changed = false;
  for (const value of values) {
    const entry = shown.get(value.key);
    if (JSON.stringify(value) === JSON.stringify(entry.value)) continue;
    changed = true;
    if (entry.card.contains(document.activeElement)) {
      entry.note.textContent = `${value.updatedBy || "Someone"} changed this experiment while you were editing. Applying will be refused; Reload shows theirs.`;
      continue;
    }
    await reload(value.key);
    context.notify(`Experiment ${value.key} was changed by ${value.updatedBy || "someone"}.`, "info");
  }
  return changed || metricsChanged;
}

async function load() {
  const values = (await get("/admin/experiments")).body.experiments;
  const answers = await Promise.all(values.map((value) => get(`/admin/experiments/${encodeURIComponent(value.key)}`)));
  shown.clear();
  list.replaceChildren(...answers.map((answer) => {
    const entry = card(answer);
    shown.set(answer.body.key, entry);
    return entry.card;
  }));
}

async function reload(key) {
  const answer = await get(`/admin/experiments/${encodeURIComponent(key)}`);
  const entry = card(answer);
  shown.get(key).card.replaceWith(entry.card);
  shown.set(key, entry);
}

function change(key, payload, what) {
  return context.writing(async () => {
    const entry = shown.get(key);
    try {
      const result = await call("PUT", `/admin/experiments/${encodeURIComponent(key)}`, { body: payload, ifMatch: entry.etag });
      await reload(key);
      context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
      if (error.status === 412) {
        entry.note.replaceChildren("Someone else changed this experiment first. ",
          h("button", { type: "button", onclick: () => reload(key).then(() => context.notify("")) }, `Reload ${key}`));
      }
    }
  });
}

function card({ body: value, etag }) {
  const disabled = !context.canWrite;
  const key = value.key;
  const note = h("p", { class: "row-note", role: "status" });
  const weights = value.variants.map((variant) => ({
    name: variant.name,
    field: h("input", { type: "number", min: 0, step: 1, value: variant.weight, disabled, class: "percentage", "aria-label": `${key} weight of ${variant.name}` }),
    share: h("span", { class: "hint" }),
  }));
  const shares = () => {
    const total = weights.reduce((sum, weight) => sum + Math.max(0, Number(weight.field.value) || 0), 0);
    for (const weight of weights) {
      const share = total ? (100 * Math.max(0, Number(weight.field.value) || 0)) / total : 0;
      weight.share.textContent = `${share.toFixed(2)}% of users`;
    }
  };
  for (const weight of weights) weight.field.addEventListener("input", shares);
  shares();
  const statusId = uid("status");
  const winnerId = uid("winner");
  const status = h("select", { id: statusId, disabled }, ["running", "paused", "concluded"].map((name) =>
    h("option", { value: name, selected: value.status === name }, name)));
  const winner = h("select", { id: winnerId, disabled: disabled || value.status !== "concluded" },
    value.variants.map((variant) => h("option", { value: variant.name, selected: value.winner === variant.name }, variant.name)));
  status.addEventListener("change", () => { winner.disabled = disabled || status.value !== "concluded"; });
  const apply = () => {
    const payload = { weights: Object.fromEntries(weights.map((weight) => [weight.name, Number(weight.field.value)])), status: status.value };
    if (status.value === "concluded") payload.winner = winner.value;
    return change(key, payload, `Changing ${key}`);
  };

  const overrideUser = h("input", { id: uid("override-user"), disabled });
  const overrideVariant = h("select", { id: uid("override-variant"), disabled },
    value.variants.map((variant) => h("option", { value: variant.name }, variant.name)));
  const overrides = Object.entries(value.overrides);
  const remove = (user) => async () => {
    if (await confirmDialog(`Release ${user}?`, `${user} goes back to the variant their bucket gives in ${key}.`, "Release"))
      await change(key, { overrides: { [user]: null } }, `Releasing ${user} from ${key}`);
  };

  const card = h("article", { class: "change", "data-experiment": key, "aria-label": `Experiment ${key}` },
    h("h3", {}, key),
    h("p", { class: "hint" }, value.description || ""),
    h("p", {}, `Status ${value.status}${value.winner ? ` (winner ${value.winner})` : ""}; default variant ${value.defaultVariant}; `,
      `source ${value.source}; last changed ${value.updatedBy ? `by ${value.updatedBy}, ${when(value.updatedAt)}` : "—"}.`),
    h("p", { class: "measures" },
      `Goals: ${value.goals?.length ? value.goals.join(", ") : "none"}; guardrails: ${value.guardrails?.length ? value.guardrails.join(", ") : "none"}`,
      value.exposures === "server" ? "; the server records exposures" : value.exposures ? "; apps send exposures" : "", ". ",
      h("a", { href: `#results/${encodeURIComponent(key)}`, class: "results-link" }, `Results of ${key}`)),
    h("div", { class: "inline-form" },
      weights.map((weight) => h("span", { class: "weight" }, h("span", { "aria-hidden": "true" }, `${weight.name} `), weight.field, " ", weight.share)),
      h("label", { for: statusId }, "Status"), status,
      h("label", { for: winnerId }, "Winner"), winner,
      h("button", { type: "button", disabled, onclick: apply }, `Apply ${key}`)),
    note,
    h("h4", {}, "Overrides for QA users"),
    overrides.length
      ? h("ul", {}, overrides.map(([user, variant]) => h("li", {}, `${user} → ${variant} `,
        h("button", { type: "button", disabled, onclick: remove(user) }, `Release ${user}`))))
      : h("p", { class: "hint" }, "None."),
    h("form", { class: "inline-form", "aria-label": `Add an override to ${key}`, onsubmit: (event) => {
      event.preventDefault();
      const user = overrideUser.value.trim();
      if (user) change(key, { overrides: { [user]: overrideVariant.value } }, `Forcing ${user} into ${overrideVariant.value}`);
    } },
      h("label", { for: overrideUser.id }, "User id"), overrideUser,
      h("label", { for: overrideVariant.id }, "Variant"), overrideVariant,
      h("button", { type: "submit", disabled }, "Add override")));
  return { value, etag, card, note };
}

function createForm() {
  const disabled = !context.canWrite;
  const key = h("input", { id: "new-experiment-key", required: true, disabled });
  const variants = h("input", { id: "new-experiment-variants", required: true, placeholder: "control=50, big=50", disabled });
  const description = h("input", { id: "new-experiment-description", disabled });
  const form = h("form", { class: "inline-form", "aria-labelledby": "new-experiment-title" },
    h("h3", { id: "new-experiment-title" }, "New experiment"),
    h("label", { for: "new-experiment-key" }, "Key"), key,
    h("label", { for: "new-experiment-variants" }, "Variants and weights"), variants,
    h("label", { for: "new-experiment-description" }, "Description"), description,
    h("button", { type: "submit", disabled }, "Create experiment"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const pairs = variants.value.split(",").map((pair) => pair.split("=").map((part) => part.trim())).filter(([name]) => name);
    const payload = {
      key: key.value.trim(),
      variants: Object.fromEntries(pairs.map(([name, weight]) => [name, Number(weight)])),
      status: "running",
      defaultVariant: pairs[0]?.[0],
    };
    if (description.value.trim()) payload.description = description.value.trim();
    const what = `Creating experiment ${payload.key}`;
    context.writing(async () => {
      try {
        const result = await call("POST", "/admin/experiments", { body: payload });
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

// ---- Metrics: what experiments measure (GET /admin/metrics), defined and deleted here ----------

let metricsBody;
let metricEditor;
let metricName;
let metricEditing;
let metricNote;
// Each metric shown, by name: { value, etag }; and the list as shown, to tell a change.
const metrics = new Map();
let metricsJSON = "";
// The metric the editor redefines ({ name, etag, revision }), or null for a new one.
let editing = null;

const metricPath = (name) => `/admin/metrics/${encodeURIComponent(name)}`;
const provenanceMembers = new Set(["name", "experiments", "source", "revision", "updatedAt", "updatedBy"]);
// A metric's definition, as PUT takes it: the listing's members less who and where.
const definition = (metric) => Object.fromEntries(Object.entries(metric).filter(([member]) => !provenanceMembers.has(member)));

function metricsSection() {
  const disabled = !context.canWrite;
  metricsBody = h("tbody");
  metricName = h("input", { id: "metric-name", required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}", disabled, autocomplete: "off" });
  metricEditor = jsonEditor("metric", {
    label: "Definition (JSON)", rows: 7, file: false, disabled,
    text: JSON.stringify({ type: "proportion", event: "purchase", windowHours: 72 }, null, 2),
  });
  metricEditing = h("p", { id: "metric-editing", class: "hint", role: "status" });
  metricNote = h("p", { class: "row-note", role: "status" });
  const form = h("form", { id: "metric-form", "aria-labelledby": "metric-form-title" },
    h("h4", { id: "metric-form-title" }, "Define or redefine a metric"),
    h("p", { class: "hint" }, "type proportion, mean or ratio; event (or numerator and denominator, each {event, value: sum | count}); windowHours; higherIsBetter; cuped (true, or {lookbackHours}); description."),
    h("div", { class: "inline-form" }, h("label", { for: "metric-name" }, "Name"), metricName),
    metricEditor.elements,
    metricEditing,
    metricNote,
    h("div", { class: "inline-form" },
      h("button", { type: "submit", id: "metric-save", disabled }, "Save metric"),
      h("button", { type: "button", id: "metric-new", disabled, onclick: () => editMetric(null) }, "Start a new metric")));
  form.addEventListener("submit", (event) => { event.preventDefault(); saveMetric(); });
  metricName.addEventListener("input", describeEditing);
  describeEditing();
  return h("section", { id: "metrics", "aria-labelledby": "metrics-title" },
    h("h3", { id: "metrics-title" }, "Metrics"),
    h("table", { class: "grid", id: "metrics-table", "aria-describedby": "metrics-caption" },
      h("caption", { id: "metrics-caption" }, "What experiments measure from the events apps send (POST /v1/events); an experiment names them as goals and guardrails."),
      h("thead", {}, h("tr", {}, ["Name", "Type", "Event", "Window", "Higher is better", "CUPED", "Experiments", "Last changed", "Actions"]
        .map((name) => h("th", { scope: "col" }, name)))),
      metricsBody),
    form);
}

async function loadMetrics() {
  const listed = (await get("/admin/metrics")).body.metrics;
  const answers = await Promise.all(listed.map((metric) => get(metricPath(metric.name))));
  drawMetrics(listed, answers);
}

// True when the metrics differ from those shown.
async function pollMetrics() {
  const listed = (await get("/admin/metrics")).body.metrics;
  if (JSON.stringify(listed) === metricsJSON) return false;
  const answers = await Promise.all(listed.map((metric) => get(metricPath(metric.name))));
  drawMetrics(listed, answers);
  if (editing && !metrics.has(editing.name)) metricNote.textContent = `Metric ${editing.name} was deleted meanwhile: saving defines it anew.`;
  else if (editing && metrics.get(editing.name).etag !== editing.etag) {
    metricNote.textContent = `Someone changed metric ${editing.name} while you were editing. Saving yours will be refused; Redefine ${editing.name} loads theirs.`;
  }
  context.notify("The metrics changed.", "info");
  return true;
}

function drawMetrics(listed, answers) {
  const disabled = !context.canWrite;
  metricsJSON = JSON.stringify(listed);
  metrics.clear();
  for (const answer of answers) metrics.set(answer.body.name, { value: answer.body, etag: answer.etag });
  metricsBody.replaceChildren(...answers.map(({ body: metric }) => h("tr", { "data-metric": metric.name },
    h("th", { scope: "row" }, h("span", { class: "key" }, metric.name), metric.description ? h("span", { class: "description" }, metric.description) : null),
    h("td", {}, metric.type),
    h("td", {}, measured(metric)),
    h("td", {}, metric.windowHours ? `${metric.windowHours} h from exposure` : "until read"),
    h("td", {}, metric.higherIsBetter === false ? "no" : "yes"),
    h("td", {}, metric.cuped ? `yes (${metric.cuped.lookbackHours ?? 336} h before exposure)` : "no"),
    h("td", {}, metric.experiments?.length ? metric.experiments.join(", ") : "—"),
    h("td", {}, metric.updatedBy ? `by ${metric.updatedBy}, ${when(metric.updatedAt)}` : "—"),
    h("td", { class: "actions" },
      h("button", { type: "button", disabled, onclick: () => editMetric(metric.name) }, `Redefine ${metric.name}`),
      h("button", { type: "button", class: "danger", disabled, onclick: () => deleteMetric(metric.name) }, `Delete ${metric.name}`)))));
  if (!answers.length) metricsBody.append(h("tr", {}, h("td", { colspan: 9 }, "No metrics yet.")));
  describeEditing();
}

// What a metric counts, in a line: `purchase`, `purchase (count)`, `purchase (sum) / purchase (count)`.
function measured(metric) {
  const measure = (part, fallback) => `${part.event} (${part.value || fallback})`;
  if (metric.type === "ratio") return `${measure(metric.numerator, "sum")} / ${measure(metric.denominator || metric.numerator, "count")}`;
  if (metric.type === "mean") return measure(metric, "sum");
  return metric.event;
}

// Loads metric `name` into the editor to redefine it (null: a new one).
function editMetric(name) {
  metricNote.textContent = "";
  metricEditor.clearProblems();
  if (name === null) {
    editing = null;
    metricName.value = "";
    metricName.focus();
  } else {
    const { value, etag } = metrics.get(name);
    editing = { name, etag, revision: value.revision };
    metricName.value = name;
    metricEditor.value = JSON.stringify(definition(value), null, 2);
    metricEditor.textarea.focus();
  }
  describeEditing();
}

function describeEditing() {
  if (!metricEditing) return;
  const name = metricName.value.trim();
  if (editing && name === editing.name) {
    metricEditing.textContent = `Redefining ${name} as of revision ${editing.revision}: saved only if nobody changed it since (If-Match).`;
  } else if (metrics.has(name)) {
    metricEditing.textContent = `${name} exists: press Redefine ${name} in the table to load it first.`;
  } else {
    metricEditing.textContent = name ? `A new metric ${name}.` : "A new metric: give it a name.";
  }
}

function saveMetric() {
  const name = metricName.value.trim();
  const redefining = editing && editing.name === name;
  const what = `${redefining ? "Redefining" : "Defining"} metric ${name}`;
  metricEditor.clearProblems();
  metricNote.textContent = "";
  // PUT defines and redefines alike: a new metric must not replace one it has not loaded.
  if (!redefining && metrics.has(name)) {
    context.notify(`${what}: metric ${name} exists; press Redefine ${name} to change it.`, "error");
    return;
  }
  return context.writing(async () => {
    try {
      const result = await call("PUT", metricPath(name), { body: metricEditor.value, ifMatch: redefining ? editing.etag : undefined });
      await loadMetrics();
      if (result.status !== 202 && metrics.has(name)) editMetric(name);
      context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
      metricEditor.showProblems(error);
      if (error.status === 412) {
        metricNote.replaceChildren(`Someone else changed metric ${name} first. `,
          h("button", { type: "button", onclick: () => loadMetrics().then(() => { editMetric(name); context.notify(""); }) }, `Reload ${name}`));
      }
    }
  });
}

async function deleteMetric(name) {
  const { value, etag } = metrics.get(name);
  const sure = await confirmDialog(`Delete metric ${name}?`,
    `${name} is gone for good. The server refuses this while an experiment names it as a goal or guardrail${value.experiments?.length ? ` (now: ${value.experiments.join(", ")})` : ""}.`,
    `Delete ${name}`);
  if (!sure) return;
  const what = `Deleting metric ${name}`;
  await context.writing(async () => {
    try {
      const result = await call("DELETE", metricPath(name), { ifMatch: etag });
      await loadMetrics();
      if (editing?.name === name && result.status !== 202) editMetric(null);
      context.notify(describeWrite(result, what), result.status === 202 ? "info" : "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
    }
  });
}

// ---- Results: GET /admin/experiments/{key}/results, the page #results/KEY ------------------------

const dimensions = [["", "none"], ["platform", "platform"], ["appVersion", "app version"], ["country", "country"]];
// The colours of variants in the chart (index 0 is control), as presentation attributes and in
// the legend's swatches (console.css's .swatch-N).
const palette = ["#5b6475", "#1f5fbf", "#c2571a", "#6a3d9a", "#2a8f6a", "#b3261e"];
const colours = { better: "#1c7c3a", worse: "#b3261e", unclear: "#8a93a3" };
let resultsKey;
let resultsBody;
let dimensionField;

export const results = { render: renderResults, navigation: "experiments" };

async function renderResults(container, ctx) {
  context = ctx;
  resultsKey = ctx.argument || "";
  dimensionField = h("select", { id: "results-dimension" }, dimensions.map(([value, label]) => h("option", { value }, label)));
  dimensionField.addEventListener("change", () => loadResults());
  resultsBody = h("div", { id: "results-body" });
  container.append(
    h("h2", {}, `Results of ${resultsKey}`),
    h("p", {}, h("a", { href: "#experiments" }, "All experiments")),
    h("form", { class: "inline-form", "aria-label": `Results of ${resultsKey}`, onsubmit: (event) => { event.preventDefault(); loadResults(); } },
      h("label", { for: "results-dimension" }, "Break down by"), dimensionField,
      h("button", { type: "submit", id: "results-refresh" }, "Refresh results")),
    resultsBody);
  await loadResults();
}

async function loadResults() {
  const dimension = dimensionField.value;
  const path = `/admin/experiments/${encodeURIComponent(resultsKey)}/results${dimension ? `?dimension=${encodeURIComponent(dimension)}` : ""}`;
  resultsBody.setAttribute("aria-busy", "true");
  try {
    const answer = (await get(path)).body;
    if (dimensionField.value !== dimension) return; // another breakdown was asked for meanwhile
    drawResults(answer, dimension);
    resultsBody.dataset.dimension = dimension;
  } catch (error) {
    const text = explain(error, `Loading the results of ${resultsKey}`);
    resultsBody.replaceChildren(h("p", { class: "error" }, text));
    context.notify(text, "error");
  } finally {
    resultsBody.removeAttribute("aria-busy");
  }
}

// Figures as the page writes them (console-check reads them back).
const count = (n) => (n ?? 0).toLocaleString("en-US");
const percent = (x, digits = 2) => `${(100 * x).toFixed(digits)}%`;
const minus = "\u2212";
const signedPercent = (x) => `${x > 0 ? "+" : x < 0 ? minus : ""}${Math.abs(100 * x).toFixed(2)}%`;
const pValue = (p) => (p === null || p === undefined ? "—" : p < 0.0001 ? "< 0.0001" : p.toFixed(4));
const chance = (x) => (x === null || x === undefined ? "—" : x > 0.9999 ? "> 99.99%" : x < 0.0001 ? "< 0.01%" : percent(x));
const number = (x) => (x === null || x === undefined ? "—" : x.toLocaleString("en-US", { maximumSignificantDigits: 4 }));
const meanText = (metric, mean) => (mean === null || mean === undefined ? "—" : metric.type === "proportion" ? percent(mean) : number(mean));
const dayLabel = (day) => {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : date.toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
};

function drawResults(answer, dimension) {
  const alpha = answer.settings?.alpha ?? 0.05;
  const level = `${Math.round((1 - alpha) * 1000) / 10}%`;
  const blocks = dimension ? breakdown(answer) : [];
  resultsBody.replaceChildren(...[
    h("p", { id: "results-summary" },
      `As of ${when(answer.asOf)}; the control variant is ${answer.control}; intervals at ${level}. `,
      answer.multipleExposures ? `${count(answer.multipleExposures)} users exposed to more than one variant are left out of every figure.` : "No user was exposed to more than one variant."),
    srmBlock(answer.srm),
    h("section", { "aria-labelledby": "results-users-title" },
      h("h3", { id: "results-users-title" }, "Users per variant"),
      usersTable(answer.variants, "results-users")),
    usersOverTime(answer),
    h("section", { "aria-labelledby": "results-metrics-title", id: "results-metrics" },
      h("h3", { id: "results-metrics-title" }, dimension ? "Metrics, all users" : "Metrics"),
      metricsTable(answer.metrics || [], answer.control, level, "all")),
    dimension ? h("section", { id: "results-breakdown", "aria-labelledby": "results-breakdown-title" },
      h("h3", { id: "results-breakdown-title" }, `By ${dimensions.find(([value]) => value === dimension)[1]}`),
      blocks.length ? blocks.map((block) => h("section", { class: "dimension-block", "data-dimension-value": block.value, "aria-label": `${dimension} ${block.value}` },
        h("h4", {}, `${dimension} = ${block.value}`),
        block.srm?.warning ? srmBlock(block.srm) : null,
        block.variants ? usersTable(block.variants.map((variant) => ({ weight: answer.variants.find((v) => v.name === variant.name)?.weight, ...variant })), null) : null,
        metricsTable(block.metrics || [], answer.control, level, block.value)))
        : h("p", { class: "hint" }, `No breakdown by ${dimension} in the answer.`)) : null,
  ].filter(Boolean));
}

// The blocks of a breakdown (the answer's dimension.values: { value, variants, srm, metrics } each);
// a user who had no value at first exposure is in the block of value null.
function breakdown(answer) {
  return (answer.dimension?.values || []).map((block) => ({ ...block, value: block.value === null || block.value === undefined || block.value === "" ? "(none)" : String(block.value) }));
}

function srmBlock(srm) {
  if (!srm) return null;
  if (srm.warning) {
    return h("div", { class: "srm-warning", role: "alert", id: "results-srm" },
      h("h3", {}, "Sample ratio mismatch: these results cannot be trusted"),
      h("p", {}, srm.warning),
      h("p", {}, `The users per variant are unlikely under the weights (SRM p-value ${pValue(srm.pValue)}). Find what assigns or records users unevenly before reading any figure below.`));
  }
  return h("p", { class: "srm-ok", id: "results-srm" },
    `Sample ratio check: p-value ${pValue(srm.pValue)} (a mismatch is flagged below 0.001): the users per variant fit the weights.`);
}

function usersTable(variants, id) {
  const weights = variants.reduce((sum, variant) => sum + (variant.weight ?? 0), 0);
  const users = variants.reduce((sum, variant) => sum + (variant.users ?? 0), 0);
  return h("table", { class: "grid compact", id },
    h("thead", {}, h("tr", {}, ["Variant", "Weight", "Expected share", "Users", "Share of users"].map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, variants.map((variant) => h("tr", { "data-variant": variant.name },
      h("th", { scope: "row" }, variant.name),
      h("td", {}, variant.weight ?? "—"),
      h("td", {}, weights && variant.weight !== undefined ? percent(variant.weight / weights) : "—"),
      h("td", { class: "users" }, count(variant.users)),
      h("td", {}, users ? percent(variant.users / users) : "—")))));
}

// The axis all intervals of a table share: symmetric around 0, at a round step.
function axis(metrics) {
  let extent = 0;
  for (const metric of metrics) {
    for (const variant of metric.variants || []) {
      const relative = variant.relative;
      if (!relative || relative.error) continue;
      for (const x of [...(relative.ci || []), relative.lift]) if (Number.isFinite(x)) extent = Math.max(extent, Math.abs(x));
    }
  }
  extent = Math.max(extent, 0.01);
  const raw = extent / 3;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  const bound = Math.ceil(extent / step - 1e-9) * step;
  const ticks = [];
  for (let t = -bound; t <= bound + step / 2; t += step) ticks.push(Math.abs(t) < step / 1000 ? 0 : t);
  return { bound, ticks };
}

const bar = { width: 280, height: 28, pad: 20 };
const position = (scale, x) => bar.pad + ((Math.max(-scale.bound, Math.min(scale.bound, x)) + scale.bound) / (2 * scale.bound)) * (bar.width - 2 * bar.pad);
const tickText = (t) => (t === 0 ? "0" : `${t > 0 ? "+" : minus}${Number((Math.abs(t) * 100).toPrecision(3))}%`);

function axisHeader(scale) {
  return svg("svg", { class: "interval-axis", width: bar.width, height: 18, viewBox: `0 0 ${bar.width} 18`, "aria-hidden": "true", focusable: "false" },
    scale.ticks.filter((t, i) => scale.ticks.length <= 5 || (i - (scale.ticks.length - 1) / 2) % 2 === 0).map((t) => svg("text", { x: position(scale, t), y: 13, "text-anchor": "middle", "font-size": 11, fill: "#5b6475" }, tickText(t))));
}

// Better, worse or unclear: the interval on one side of 0, read with the metric's direction.
function verdict(metric, ci) {
  if (!ci || !(ci[0] > 0 || ci[1] < 0)) return "unclear";
  const up = ci[0] > 0;
  return up === (metric.higherIsBetter !== false) ? "better" : "worse";
}

function intervalBar(metric, variant, scale, level) {
  const { lift, ci } = variant.relative;
  const kind = verdict(metric, ci);
  const [low, high] = ci;
  const said = { better: "better than control", worse: "worse than control", unclear: "not distinguishable from control (the interval crosses 0)" }[kind];
  const label = `${metric.metric}, ${variant.variant}: lift ${signedPercent(lift)}, ${level} interval ${signedPercent(low)} to ${signedPercent(high)}: ${said}`;
  return svg("svg", { class: "interval", width: bar.width, height: bar.height, viewBox: `0 0 ${bar.width} ${bar.height}`, role: "img", "aria-label": label, "data-verdict": kind },
    svg("title", {}, label),
    scale.ticks.map((t) => svg("line", { x1: position(scale, t), x2: position(scale, t), y1: 2, y2: bar.height - 2, stroke: t === 0 ? "#1d2330" : "#e3e7ee", "stroke-width": t === 0 ? 1.5 : 1 })),
    svg("rect", { x: position(scale, low), y: 9, width: Math.max(1.5, position(scale, high) - position(scale, low)), height: 10, rx: 2, fill: colours[kind], "fill-opacity": 0.85 }),
    svg("line", { x1: position(scale, lift), x2: position(scale, lift), y1: 5, y2: bar.height - 5, stroke: "#1d2330", "stroke-width": 2.5 }),
    low < -scale.bound ? svg("text", { x: 2, y: 18, "font-size": 11, fill: "#1d2330" }, "‹") : null,
    high > scale.bound ? svg("text", { x: bar.width - 8, y: 18, "font-size": 11, fill: "#1d2330" }, "›") : null);
}

function metricsTable(metricList, control, level, blockName) {
  if (!metricList.length) return h("p", { class: "hint" }, "This experiment names no goals or guardrails: there is nothing to measure. Name metrics in its goals and guardrails (PUT /admin/experiments/{key}).");
  const scale = axis(metricList);
  const rows = [];
  for (const metric of metricList) {
    const controlRow = (metric.variants || []).find((variant) => variant.variant === control) || metric.variants?.[0];
    const others = (metric.variants || []).filter((variant) => variant !== controlRow);
    const head = h("th", { scope: "row" },
      h("span", { class: "key" }, metric.metric),
      h("span", { class: `role role-${metric.role}` }, metric.role),
      h("span", { class: "description" }, `${metric.type}; ${metric.higherIsBetter === false ? "lower" : "higher"} is better`));
    if (metric.error || !others.length) {
      rows.push(h("tr", { "data-metric": metric.metric, class: "metric-error" }, head,
        h("td", { colspan: 9, class: metric.error ? "error" : "hint" }, metric.error ? `Not computed: ${metric.error}` : "No variant to compare with control.")));
      continue;
    }
    for (const variant of others) rows.push(metricRow(metric, controlRow, variant, head.cloneNode(true), scale, level));
  }
  return h("table", { class: "grid results", "data-block": blockName },
    h("caption", {}, blockName !== "all" ? `${blockName}: each variant against control (${control}), on an axis of its own.` : `Each variant against control (${control}): relative lift with its ${level} interval on one axis around 0 — green better, red worse, grey when the interval crosses 0; the bar's dark mark is the lift.`),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Metric"), h("th", { scope: "col" }, "Variant"), h("th", { scope: "col" }, "Users (control · variant)"),
      h("th", { scope: "col" }, "Mean, control"), h("th", { scope: "col" }, "Mean, variant"), h("th", { scope: "col" }, "Lift"),
      h("th", { scope: "col", class: "interval-head" }, h("span", {}, `${level} interval of the lift`), axisHeader(scale)),
      h("th", { scope: "col" }, "p-value"), h("th", { scope: "col" }, "Sequential p-value"), h("th", { scope: "col" }, "Chance to win"))),
    h("tbody", {}, rows));
}

function metricRow(metric, controlRow, variant, head, scale, level) {
  const relative = variant.relative;
  const failed = !relative || relative.error;
  const kind = failed ? "unclear" : verdict(metric, relative.ci);
  const cuped = metric.cuped
    ? h("span", { class: "cuped", title: variant.cupedTheta === null || variant.cupedTheta === undefined ? "CUPED was asked for, but the covariate had no variance: the figures are unadjusted" : `Adjusted by the pre-exposure covariate, theta ${number(variant.cupedTheta)}` },
      variant.cupedTheta === null || variant.cupedTheta === undefined ? "CUPED not applied" : `CUPED (θ ${number(variant.cupedTheta)})`)
    : null;
  const errorOf = (figure) => figure?.error ? h("span", { class: "error" }, figure.error) : null;
  return h("tr", { "data-metric": metric.metric, "data-variant": variant.variant },
    head,
    h("td", {}, variant.variant),
    h("td", { class: "users" }, `${count(controlRow?.users)} · ${count(variant.users)}`),
    h("td", { class: "mean-control" }, meanText(metric, controlRow?.mean)),
    h("td", { class: "mean-variant" }, meanText(metric, variant.mean)),
    h("td", { class: `lift ${kind}` }, failed ? errorOf(relative) || "—" : h("span", { class: "figure" }, signedPercent(relative.lift)), cuped),
    h("td", { class: "interval-cell" }, failed ? "—" : [intervalBar(metric, variant, scale, level),
      h("span", { class: "interval-text" }, `${signedPercent(relative.ci[0])} to ${signedPercent(relative.ci[1])}`)]),
    h("td", { class: "p-value" }, failed ? "—" : pValue(relative.pValue)),
    h("td", { class: "sequential" }, variant.sequential?.error ? errorOf(variant.sequential) : pValue(variant.sequential?.pValue)),
    h("td", { class: "chance" }, variant.bayesian?.error ? errorOf(variant.bayesian) : chance(variant.bayesian?.chanceToWin)));
}

// Users per variant by day: a line per variant, the days and counts on the axes; a table with the
// same figures for screen readers (and anyone who wants the numbers).
function usersOverTime(answer) {
  const days = answer.usersOverTime || [];
  const names = answer.variants.map((variant) => variant.name);
  const section = h("section", { "aria-labelledby": "results-over-time-title", id: "results-over-time" },
    h("h3", { id: "results-over-time-title" }, "Users per variant over time"),
    h("p", { class: "hint" }, "Users first exposed each day (UTC), by variant."));
  if (!days.length) {
    section.append(h("p", { class: "hint" }, "No exposures yet."));
    return section;
  }
  const width = 640, height = 240, left = 64, right = 16, top = 12, bottom = 44;
  const most = Math.max(1, ...days.flatMap((day) => names.map((name) => day.users?.[name] ?? 0)));
  const magnitude = 10 ** Math.floor(Math.log10(most / 4));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s * 4 >= most) || magnitude * 10;
  const top_ = Math.max(step, Math.ceil(most / step) * step);
  const x = (i) => left + (days.length === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (days.length - 1));
  const y = (n) => top + (height - top - bottom) * (1 - n / top_);
  const every = Math.ceil(days.length / 8);
  const last = days[days.length - 1];
  const description = `Users first exposed each day by variant, ${days[0].day} to ${last.day}, up to ${count(most)} a day; on ${last.day}: ${names.map((name) => `${name} ${count(last.users?.[name] ?? 0)}`).join(", ")}. The table below gives every day.`;
  const chart = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": description, id: "results-chart" },
    svg("title", {}, description),
    // The count axis: its grid and labels.
    Array.from({ length: Math.round(top_ / step) + 1 }, (_, i) => i * step).map((n) => [
      svg("line", { x1: left, x2: width - right, y1: y(n), y2: y(n), stroke: n === 0 ? "#1d2330" : "#e3e7ee" }),
      svg("text", { x: left - 6, y: y(n) + 4, "text-anchor": "end", "font-size": 11, fill: "#5b6475" }, count(n))]),
    svg("text", { x: 14, y: top + (height - top - bottom) / 2, "text-anchor": "middle", "font-size": 11, fill: "#5b6475", transform: `rotate(-90 14 ${top + (height - top - bottom) / 2})` }, "new users"),
    // The day axis.
    days.map((day, i) => (i % every === 0 || i === days.length - 1) ? [
      svg("line", { x1: x(i), x2: x(i), y1: height - bottom, y2: height - bottom + 4, stroke: "#1d2330" }),
      svg("text", { x: x(i), y: height - bottom + 17, "text-anchor": "middle", "font-size": 11, fill: "#5b6475" }, dayLabel(day.day))] : null),
    svg("text", { x: left + (width - left - right) / 2, y: height - 6, "text-anchor": "middle", "font-size": 11, fill: "#5b6475" }, "day (UTC)"),
    names.map((name, v) => {
      const points = days.map((day, i) => [x(i), y(day.users?.[name] ?? 0)]);
      const colour = palette[v % palette.length];
      return svg("g", { "data-variant": name },
        svg("polyline", { points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 2 }),
        points.map(([px, py]) => svg("circle", { cx: px.toFixed(1), cy: py.toFixed(1), r: 3, fill: colour })));
    }));
  section.append(
    h("figure", { class: "chart-figure" },
      chart,
      h("figcaption", {}, h("ul", { class: "legend" }, names.map((name, v) => h("li", {}, h("span", { class: `swatch swatch-${v % palette.length}`, "aria-hidden": "true" }), name))))),
    h("details", { id: "results-over-time-table" },
      h("summary", {}, "The same as a table"),
      h("table", { class: "grid compact" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day"), names.map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, days.map((day) => h("tr", {}, h("th", { scope: "row" }, day.day), names.map((name) => h("td", {}, count(day.users?.[name] ?? 0)))))))));
  return section;
}
