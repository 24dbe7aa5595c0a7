// Webhooks (an admin token's page): the receivers of audit events, with the events each gets; make
// one (its secret goes in and never comes back out) or delete one made here; how the newest
// deliveries went. Those in server.json are listed, never deleted here.
import { call, get, describeWrite, explain } from "./api.js";
import { h, when, confirmDialog } from "./dom.js";

const deliveryLimit = 50;
let context;
let body;
let deliveries;
// What is shown, as JSON: the webhooks and the deliveries answers.
const shown = { webhooks: "", deliveries: "" };
// Webhooks and their deliveries are no published changes: the change stream says nothing of them.
export const polled = true;

export async function render(container, ctx) {
  context = ctx;
  body = h("tbody");
  deliveries = h("tbody");
  container.append(
    h("h2", {}, "Webhooks"),
    h("table", { class: "grid", "aria-describedby": "webhooks-caption" },
      h("caption", { id: "webhooks-caption" }, "Each receiver gets the audit events it names, signed with its secret (never shown)."),
      h("thead", {}, h("tr", {}, ["Name", "URL", "Events", "Source", "Made", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
      body),
    createForm(),
    h("h3", {}, "Deliveries"),
    h("table", { class: "grid", id: "deliveries" },
      h("caption", {}, `The newest ${deliveryLimit} attempts, newest first.`),
      h("thead", {}, h("tr", {}, ["When", "Webhook", "Event", "Attempt", "Outcome", "Status", "Error"].map((name) => h("th", { scope: "col" }, name)))),
      deliveries));
  await load();
}

// True when the webhooks changed (new deliveries are shown too, but they are no one's change).
export async function poll() {
  const [list, attempts] = await Promise.all([get("/admin/webhooks"), get(`/admin/webhooks/deliveries?limit=${deliveryLimit}`)]);
  const webhooksJSON = JSON.stringify(list.body);
  const deliveriesJSON = JSON.stringify(attempts.body);
  if (webhooksJSON === shown.webhooks && deliveriesJSON === shown.deliveries) return false;
  const changed = webhooksJSON !== shown.webhooks;
  draw(list.body, attempts.body);
  if (changed) context.notify("The webhooks changed.", "info");
  return changed;
}

async function load() {
  const [list, attempts] = await Promise.all([get("/admin/webhooks"), get(`/admin/webhooks/deliveries?limit=${deliveryLimit}`)]);
  draw(list.body, attempts.body);
}

function draw(list, log) {
  shown.webhooks = JSON.stringify(list);
  shown.deliveries = JSON.stringify(log);
  const webhooks = list.webhooks;
  const attempts = log.deliveries;
  body.replaceChildren(...webhooks.map((webhook) => h("tr", { "data-webhook": webhook.name },
    h("th", { scope: "row" }, h("span", { class: "key" }, webhook.name)),
    h("td", {}, webhook.url),
    h("td", {}, webhook.events.join(", ")),
    h("td", {}, webhook.source === "config" ? "server.json" : "made here"),
    h("td", {}, webhook.createdBy ? `by ${webhook.createdBy}, ${when(webhook.createdAt)}` : "—"),
    h("td", {}, webhook.source === "config"
      ? h("span", { class: "hint" }, "Remove it from server.json and restart")
      : h("button", { type: "button", class: "danger", onclick: () => remove(webhook) }, `Delete ${webhook.name}`)))));
  if (!webhooks.length) body.append(h("tr", {}, h("td", { colspan: 6 }, "No webhooks.")));
  deliveries.replaceChildren(...attempts.map((attempt) => h("tr", { "data-delivery": attempt.id },
    h("td", {}, when(attempt.at)), h("td", {}, attempt.webhook), h("td", {}, attempt.event), h("td", {}, String(attempt.attempt)),
    h("td", { class: attempt.outcome === "delivered" ? "on" : "killed" }, attempt.outcome),
    h("td", {}, attempt.statusCode ?? "—"), h("td", {}, attempt.error || ""))));
  if (!attempts.length) deliveries.append(h("tr", {}, h("td", { colspan: 7 }, "No deliveries yet.")));
}

async function remove(webhook) {
  const sure = await confirmDialog(`Delete webhook ${webhook.name}?`,
    `${webhook.url} gets no more events, from the next one on.`, `Delete ${webhook.name}`);
  if (!sure) return;
  const what = `Deleting webhook ${webhook.name}`;
  await context.writing(async () => {
    try {
      const result = await call("DELETE", `/admin/webhooks/${encodeURIComponent(webhook.name)}`);
      await load();
      context.notify(describeWrite(result, what), "ok");
    } catch (error) {
      context.notify(explain(error, what), "error");
    }
  });
}

function createForm() {
  const name = h("input", { id: "new-webhook-name", required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}", autocomplete: "off" });
  const url = h("input", { id: "new-webhook-url", type: "url", required: true, placeholder: "https://hooks.example.com/trellis", size: 36 });
  const secret = h("input", { id: "new-webhook-secret", type: "password", required: true, minlength: 16, autocomplete: "new-password" });
  const events = h("input", { id: "new-webhook-events", placeholder: "*, rollout.kill, screen.*" });
  const form = h("form", { class: "inline-form", "aria-labelledby": "new-webhook-title" },
    h("h3", { id: "new-webhook-title" }, "New webhook"),
    h("label", { for: "new-webhook-name" }, "Name"), name,
    h("label", { for: "new-webhook-url" }, "URL"), url,
    h("label", { for: "new-webhook-secret" }, "Secret (16 bytes or more)"), secret,
    h("label", { for: "new-webhook-events" }, "Events (comma-separated; empty for every event)"), events,
    h("button", { type: "submit" }, "Make webhook"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const payload = { name: name.value.trim(), url: url.value.trim(), secret: secret.value };
    const patterns = events.value.split(",").map((pattern) => pattern.trim()).filter(Boolean);
    if (patterns.length) payload.events = patterns; // else the server's default, every event ("*")
    const what = `Making webhook ${payload.name}`;
    context.writing(async () => {
      try {
        const result = await call("POST", "/admin/webhooks", { body: payload });
        form.reset();
        await load();
        context.notify(describeWrite(result, what), "ok");
      } catch (error) {
        context.notify(explain(error, what), "error");
      }
    });
  });
  return form;
}
