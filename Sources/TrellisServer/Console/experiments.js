// Experiments: weights (with the share of users each variant would get), status and winner,
// overrides for QA users; create one. Every change sends the If-Match of the version shown.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, uid, confirmDialog } from "./dom.js";

let context;
let list;
// Each experiment shown, by key: { value, etag, card }.
const shown = new Map();

export async function render(container, ctx) {
  context = ctx;
  list = h("div", { id: "experiments-list" });
  container.append(h("h2", {}, "Experiments"), list, createForm());
  await load();
}

// True when something shown changed (the shell's banner for a change event).
export async function poll() {
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
  return changed;
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
